import { SESClient, SendEmailCommand, SendRawEmailCommand } from '@aws-sdk/client-ses';
import { describe, expect, it } from 'vitest';
import { iamRequestsFor } from '../../infra/local/iam/call-authorization.ts';
import { localCallScope } from '../../infra/local/iam/local-account.ts';
import { OFFLINE_CLIENT, referenceCheck, sentCall } from '../support/iam-calls.ts';

const IDENTITY = 'arn:aws:ses:us-east-1:000000000000:identity';
const CONFIGURATION_SET = 'arn:aws:ses:us-east-1:000000000000:configuration-set/business-platform-local';

async function requestsOf(command: unknown, sesIdentities: string[]) {
  const client = new SESClient(OFFLINE_CLIENT);
  return iamRequestsFor(await sentCall(client, command), localCallScope({ sesIdentities }));
}

/** The invite e-mail's shape (lib/admins/invite-mail.ts): a sender with a name, one recipient, a set. */
const invite = (source: string) =>
  new SendEmailCommand({
    Source: source,
    Destination: { ToAddresses: ['new.admin@example.com'], BccAddresses: ['audit@example.com'] },
    Message: { Subject: { Data: 'Invite' }, Body: { Text: { Data: 'Accept' } } },
    ConfigurationSetName: 'business-platform-local',
  });

describe('SES calls as IAM requests', () => {
  it('authorizes a send on the sender’s identity and on its configuration set, with the From address', async () => {
    const requests = await requestsOf(invite('"Business Platform" <no-reply@business-platform.local>'), [
      'no-reply@business-platform.local',
    ]);
    const context = {
      'ses:FromAddress': 'no-reply@business-platform.local',
      'ses:FromDisplayName': 'Business Platform',
      'ses:Recipients': ['new.admin@example.com', 'audit@example.com'],
      'ses:ApiVersion': '1',
    };
    expect(requests).toEqual([
      { action: 'ses:SendEmail', resource: `${IDENTITY}/no-reply@business-platform.local`, context },
      { action: 'ses:SendEmail', resource: CONFIGURATION_SET, context },
    ]);
  });

  it('authorizes on the domain’s identity when the domain, not the address, is verified', async () => {
    const [identity] = await requestsOf(invite('no-reply@business-platform.local'), [
      'business-platform.local',
    ]);
    expect(identity?.resource).toBe(`${IDENTITY}/business-platform.local`);
    expect(identity?.context['ses:FromDisplayName']).toBeUndefined();
  });

  it('authorizes a send without a configuration set on the identity alone', async () => {
    const requests = await requestsOf(
      new SendEmailCommand({
        Source: 'a@example.com',
        Destination: { ToAddresses: ['b@example.com'] },
        Message: { Subject: { Data: 's' }, Body: { Text: { Data: 't' } } },
        ReturnPath: 'bounces@example.com',
      }),
      [],
    );
    expect(requests).toEqual([
      {
        action: 'ses:SendEmail',
        resource: `${IDENTITY}/a@example.com`,
        context: {
          'ses:FromAddress': 'a@example.com',
          'ses:Recipients': ['b@example.com'],
          'ses:FeedbackAddress': 'bounces@example.com',
          'ses:ApiVersion': '1',
        },
      },
    ]);
  });

  it('reads a raw message’s From, recipients and configuration set header when the call gives none', async () => {
    const message = [
      'From: Platform <no-reply@business-platform.local>',
      'To: "Doe, Jane" <jane@example.com>, bob@example.com',
      'Cc: carol@example.com',
      'X-SES-CONFIGURATION-SET: business-platform-local',
      'Subject: Hello',
      '',
      'Body: not a header',
    ].join('\r\n');
    const requests = await requestsOf(
      new SendRawEmailCommand({ RawMessage: { Data: new TextEncoder().encode(message) } }),
      ['business-platform.local'],
    );
    const context = {
      'ses:FromAddress': 'no-reply@business-platform.local',
      'ses:FromDisplayName': 'Platform',
      'ses:Recipients': ['jane@example.com', 'bob@example.com', 'carol@example.com'],
      'ses:ApiVersion': '1',
    };
    expect(requests).toEqual([
      { action: 'ses:SendRawEmail', resource: `${IDENTITY}/business-platform.local`, context },
      { action: 'ses:SendRawEmail', resource: CONFIGURATION_SET, context },
    ]);
  });

  it('gives only actions, ARNs and condition keys the Service Authorization Reference defines', async () => {
    const requests = [
      ...(await requestsOf(invite('Platform <no-reply@business-platform.local>'), [])),
      ...(await requestsOf(
        new SendRawEmailCommand({
          Source: 'a@example.com',
          Destinations: ['b@example.com'],
          RawMessage: { Data: new TextEncoder().encode('Subject: x\r\n\r\nx') },
          ConfigurationSetName: 'business-platform-local',
        }),
        [],
      )),
    ];
    for (const request of requests) {
      expect(await referenceCheck(request), request.resource).toMatchObject({
        decision: 'Allowed',
        resourceType: request.resource.includes(':configuration-set/') ? 'configuration-set' : 'identity',
        ignoredKeys: [],
      });
    }
  });
});
