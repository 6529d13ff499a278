import { randomUUID } from 'node:crypto';
import { MessageRejected } from '@aws-sdk/client-ses';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { ses } from '#lib/admins/invite-mail.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { api } from '../support/api.ts';
import { callInProcess } from '../support/in-process-route.ts';
import { platformAdminToken } from '../support/tenants.ts';

/**
 * The invite route's handler run in this process, for what the harness cannot show: an answer
 * only SES in AWS gives (injected with a client middleware: aws-ses-v2-local accepts every send)
 * and the log lines the function prints.
 */
const REFUSE_SEND = 'answerMessageRejected';
afterEach(() => {
  ses.middlewareStack.remove(REFUSE_SEND);
  vi.restoreAllMocks();
});

/** SES's answer to a send in the sandbox to an address nobody verified: it names the address. */
function answerMessageRejected() {
  ses.middlewareStack.add(
    (_next, context) => async (args) => {
      if (context.commandName !== 'SendEmailCommand') return _next(args);
      const [to] = (args.input as { Destination: { ToAddresses: string[] } }).Destination.ToAddresses;
      throw new MessageRejected({
        message: `Email address is not verified. The following identities failed the check in region US-EAST-1: ${to}`,
        $metadata: { httpStatusCode: 400 },
      });
    },
    { step: 'initialize', name: REFUSE_SEND },
  );
}

/** The JSON lines the logger prints meanwhile (it writes errors to stderr, the rest to stdout). */
function captureLogLines() {
  const lines: string[] = [];
  for (const stream of [process.stdout, process.stderr]) {
    const write = stream.write.bind(stream);
    vi.spyOn(stream, 'write').mockImplementation(((chunk: unknown, ...rest: unknown[]) => {
      lines.push(String(chunk));
      return (write as (...args: unknown[]) => boolean)(chunk, ...rest);
    }) as typeof stream.write);
  }
  return () => lines.flatMap((text) => text.split('\n')).filter((line) => line.startsWith('{'));
}

describe('an invite whose e-mail SES refuses', () => {
  it('logs the invite’s id, never the invitee’s address, and answers 503', async () => {
    const email = `refused.${randomUUID().slice(0, 8)}@example.com`;
    const route = routeTable.find((candidate) => candidate.operationId === 'invitePlatformAdmin');
    if (!route) throw new Error('no invitePlatformAdmin route');
    answerMessageRejected();
    const logged = captureLogLines();

    const answer = await callInProcess(route, {
      url: '/api/v1/admin/users',
      headers: { authorization: `Bearer ${platformAdminToken()}` },
      json: { email },
    });

    expect(answer.status).toBe(503);
    const lines = logged();
    const notSent = lines
      .map((line) => JSON.parse(line))
      .find((line) => line.message === 'Invite e-mail not sent');
    // The invite is stored before the send: its id is the one the admin list shows for the address.
    const listed = await api('GET', '/api/v1/admin/users', { token: platformAdminToken() });
    const invite = listed.body.data.find((entry: { email: string }) => entry.email === email);
    expect(notSent).toMatchObject({
      inviteId: invite.id,
      error: { name: 'MessageRejected', httpStatusCode: 400, message: expect.stringContaining('<address>') },
    });
    expect(lines.join('\n')).not.toContain(email);
    expect(lines.join('\n')).not.toContain(email.split('@')[0]);
  });
});
