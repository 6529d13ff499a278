import { SESClient, SendEmailCommand } from '@aws-sdk/client-ses';
import type { PlatformAdminEntry } from '#lib/admins/schemas.ts';
import { optionalEnv, requiredEnv } from '#lib/config/env.ts';
import { sdkClientOptions } from '#lib/config/timeouts.ts';
import { ServiceUnavailableError } from '#lib/http/errors.ts';
import { logger } from '#lib/observability/logger.ts';

const sender = requiredEnv('SES_SENDER');
/** The SES configuration set that counts sends, bounces and complaints (unset: SES's default). */
const configurationSet = optionalEnv('SES_CONFIGURATION_SET');
const consoleUrl = requiredEnv('CONSOLE_URL').replace(/\/$/, '');

/** SES_ENDPOINT points it at aws-ses-v2-local; unset in AWS. */
export const ses = new SESClient({
  ...(optionalEnv('SES_ENDPOINT') ? { endpoint: optionalEnv('SES_ENDPOINT') } : {}),
  ...sdkClientOptions('ses'),
});

/** Where the console lets the invitee accept (it calls POST …/platform-admin-invites/{id}/accept). */
export const inviteLink = (inviteId: string) => `${consoleUrl}/admin/invites/${encodeURIComponent(inviteId)}`;

/**
 * Send the invite e-mail (text and HTML). The invite is already stored: when SES fails, the
 * caller gets a 503 and repeating the invite re-sends it.
 */
export async function sendInviteMail(invite: PlatformAdminEntry): Promise<void> {
  const link = inviteLink(invite.id);
  const expires = invite.expires_at ? new Date(invite.expires_at).toUTCString() : 'in 7 days';
  const text = [
    'You have been invited to become a platform admin of the Business Platform.',
    '',
    `Accept the invite: ${link}`,
    '',
    `Sign in with ${invite.email} to accept. The invite expires ${expires}.`,
  ].join('\n');
  const html = `<p>You have been invited to become a platform admin of the Business Platform.</p>
<p><a href="${link}">Accept the invite</a></p>
<p>Sign in with ${escapeHtml(invite.email)} to accept. The invite expires ${escapeHtml(expires)}.</p>`;
  try {
    await ses.send(
      new SendEmailCommand({
        Source: sender,
        ...(configurationSet ? { ConfigurationSetName: configurationSet } : {}),
        Destination: { ToAddresses: [invite.email] },
        Message: {
          Subject: { Data: 'You are invited to administer the Business Platform', Charset: 'UTF-8' },
          Body: { Text: { Data: text, Charset: 'UTF-8' }, Html: { Data: html, Charset: 'UTF-8' } },
        },
      }),
    );
  } catch (error) {
    // The invite's id finds the invite; the invitee's address stays out of the logs.
    logger.error('Invite e-mail not sent', { inviteId: invite.id, error: withoutAddresses(error) });
    throw new InviteMailNotSent(surelyNotSent(error));
  }
}

/**
 * The invite is stored but its e-mail was not sent (a 503). `certain`: SES refused it or could not
 * be reached, so no e-mail went out; otherwise (a timeout, a dropped connection) it may have.
 */
export class InviteMailNotSent extends ServiceUnavailableError {
  constructor(readonly certain: boolean) {
    super('The invite is saved but its e-mail could not be sent; repeat the invite to send it again', 'mail');
  }
}

/**
 * What a log may say about a failed send: the error's name, code and HTTP status, and its message
 * with every e-mail address in it replaced (SES's MessageRejected names the recipients it refused).
 * No stack: its first line repeats the message.
 */
function withoutAddresses(error: unknown) {
  const failure = error as {
    name?: unknown;
    message?: unknown;
    code?: unknown;
    $metadata?: { httpStatusCode?: number };
  };
  return {
    name: String(failure.name ?? 'Error'),
    message: String(failure.message ?? '').replace(/[^\s@<>()"',;:]+@[^\s@<>()"',;:]+/g, '<address>'),
    ...(typeof failure.code === 'string' ? { code: failure.code } : {}),
    ...(failure.$metadata?.httpStatusCode ? { httpStatusCode: failure.$metadata.httpStatusCode } : {}),
  };
}

/** SES answered with an error, or the connection was never opened: no e-mail was accepted. */
function surelyNotSent(error: unknown): boolean {
  const answered = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  const code = (error as { code?: string }).code ?? (error as { cause?: { code?: string } }).cause?.code;
  return (typeof answered === 'number' && answered >= 400) || code === 'ECONNREFUSED';
}

const escapeHtml = (value: string) =>
  value.replace(
    /[&<>"']/g,
    (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] ?? c,
  );
