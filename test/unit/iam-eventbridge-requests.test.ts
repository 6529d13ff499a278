import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  EventBridgeClient,
  EventBridgeServiceException,
  PutEventsCommand,
} from '@aws-sdk/client-eventbridge';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STREAM_FILTER_PATTERNS } from '#lib/events/stream-filter.ts';
import { eventBusName } from '../../infra/events-stack.ts';
import { tableStreamMappings } from '../../infra/local/events/stream-mapping.ts';
import { accessDeniedAnswer, type Refusal } from '../../infra/local/iam/access-denied.ts';
import { iamRequestsFor } from '../../infra/local/iam/call-authorization.ts';
import { MalformedCallError, type SdkCall, UnmappedCallError } from '../../infra/local/iam/iam-request.ts';
import { localCallScope } from '../../infra/local/iam/local-account.ts';
import { OFFLINE_CLIENT, referenceCheck, sentCall } from '../support/iam-calls.ts';
import { LOCAL_STAGE, localPolicies } from '../support/local-policies.ts';

/** Synthesizing the whole app takes ~10 s alone, more on a busy machine. */
const SYNTH_TIMEOUT = 180_000;

const scope = localCallScope({ sesIdentities: [] });
const BUS = 'arn:aws:events:us-east-1:000000000000:event-bus';

async function requestsOf(command: unknown) {
  const client = new EventBridgeClient(OFFLINE_CLIENT);
  return iamRequestsFor(await sentCall(client, command), scope);
}

/** An entry as the publisher puts it (lib/events/bus.ts). */
const entry = (busName: string | undefined, detailType = 'record.updated') => ({
  ...(busName === undefined ? {} : { EventBusName: busName }),
  Source: 'business-platform',
  DetailType: detailType,
  Detail: JSON.stringify({ id: 'e1', type: detailType }),
});

describe('EventBridge calls as IAM requests', () => {
  it('authorizes each PutEvents entry on the bus it names, by name or ARN, with its source and detail-type', async () => {
    const requests = await requestsOf(
      new PutEventsCommand({
        Entries: [
          entry('business-platform-local'),
          entry(`${BUS}/business-platform-local`, 'photo.added'),
          entry('another-bus', 'record.deleted'),
        ],
      }),
    );
    expect(requests).toEqual([
      {
        action: 'events:PutEvents',
        resource: `${BUS}/business-platform-local`,
        context: { 'events:source': 'business-platform', 'events:detail-type': 'record.updated' },
      },
      {
        action: 'events:PutEvents',
        resource: `${BUS}/business-platform-local`,
        context: { 'events:source': 'business-platform', 'events:detail-type': 'photo.added' },
      },
      {
        action: 'events:PutEvents',
        resource: `${BUS}/another-bus`,
        context: { 'events:source': 'business-platform', 'events:detail-type': 'record.deleted' },
      },
    ]);
  });

  it("authorizes an entry that names no bus on the account's default bus", async () => {
    const [request] = await requestsOf(new PutEventsCommand({ Entries: [entry(undefined)] }));
    expect(request?.resource).toBe(`${BUS}/default`);
  });

  it('names what the Service Authorization Reference defines: the action, an event-bus, both condition keys', async () => {
    const [request] = await requestsOf(new PutEventsCommand({ Entries: [entry('business-platform-local')] }));
    if (!request) throw new Error('no request');
    expect(await referenceCheck(request)).toMatchObject({
      decision: 'Allowed',
      resourceType: 'event-bus',
      ignoredKeys: [],
    });
  });

  it('refuses a PutEvents without entries as malformed, and a command nobody mapped', () => {
    const call = (commandName: string, input: unknown): SdkCall => ({
      clientName: 'EventBridgeClient',
      commandName,
      input,
    });
    expect(() => iamRequestsFor(call('PutEventsCommand', { Entries: [] }), scope)).toThrow(
      MalformedCallError,
    );
    expect(() => iamRequestsFor(call('ListRulesCommand', {}), scope)).toThrow(UnmappedCallError);
  });

  it('answers a refusal as EventBridge does: AccessDeniedException, 400, the SDK throwing its own exception', async () => {
    const client = new EventBridgeClient(OFFLINE_CLIENT);
    const session = `arn:aws:sts::000000000000:assumed-role/role/bp-${LOCAL_STAGE}-PublishEvents`;
    (client.middlewareStack as unknown as { add(m: unknown, o: object): void }).add(
      (_next: unknown, context: { clientName: string; commandName: string }) =>
        async (args: { input: unknown }) => {
          const call = {
            clientName: context.clientName,
            commandName: context.commandName,
            input: args.input,
          };
          const [request] = iamRequestsFor(call, scope);
          if (!request) throw new Error('no request');
          const refusal: Refusal = {
            ...call,
            principalArn: session,
            request,
            reason: 'no-identity-policy-allows',
            requestId: 'REQUEST-ID',
          };
          return { response: accessDeniedAnswer(refusal) };
        },
      { step: 'deserialize', priority: 'low', name: 'refusedAsAwsWould' },
    );
    const error = await client.send(new PutEventsCommand({ Entries: [entry('default')] })).then(
      () => {
        throw new Error('the call was not refused');
      },
      (caught: Error & { $metadata: { httpStatusCode?: number } }) => caught,
    );
    expect(error).toBeInstanceOf(EventBridgeServiceException);
    expect(error.name).toBe('AccessDeniedException');
    expect(error.message).toBe(
      `User: ${session} is not authorized to perform: events:PutEvents on resource: ${BUS}/default because no identity-based policy allows the events:PutEvents action`,
    );
    expect(error.$metadata.httpStatusCode).toBe(400);
  });
});

describe('the publisher as the harness runs it, from the local templates', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'bps-iam-eventbridge-'));
  let local: ReturnType<typeof localPolicies>;

  beforeAll(() => {
    local = localPolicies(undefined, outdir);
  }, SYNTH_TIMEOUT);
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));

  const putEvents = (busName: string | undefined): SdkCall => ({
    clientName: 'EventBridgeClient',
    commandName: 'PutEventsCommand',
    input: { Entries: [entry(busName)] },
  });

  it('is resolved in the local account, with nothing left out', () => {
    expect(local.policies.functions.get('PublishEvents')?.unresolved).toEqual([]);
  });

  it("lets the publisher put events on the stage's bus, by name or ARN, and on no other bus", async () => {
    const bus = eventBusName(LOCAL_STAGE);
    expect((await local.decide('PublishEvents', putEvents(bus))).allowed).toBe(true);
    expect((await local.decide('PublishEvents', putEvents(`${BUS}/${bus}`))).allowed).toBe(true);
    expect((await local.decide('PublishEvents', putEvents(undefined))).allowed).toBe(false);
    expect((await local.decide('PublishEvents', putEvents('another-bus'))).allowed).toBe(false);
  });

  it("finds the publisher's mapping on the table's stream, whose ARN the stateful stack hands over as a parameter", () => {
    const [mapping, ...others] = tableStreamMappings(local.set);
    expect(others).toEqual([]);
    expect(mapping).toMatchObject({
      functionName: 'PublishEvents',
      batchSize: 100,
      startingPosition: 'TRIM_HORIZON',
      maximumRetryAttempts: 10,
      bisectBatchOnFunctionError: true,
      reportBatchItemFailures: true,
      onFailureDestination: expect.stringMatching(/^arn:aws:sqs:us-east-1:000000000000:/),
    });
    expect(mapping?.filters.map((filter) => JSON.parse(filter.source))).toEqual(STREAM_FILTER_PATTERNS);
  });

  it('lets no route function put events', async () => {
    const bus = eventBusName(LOCAL_STAGE);
    for (const name of local.policies.functions.keys()) {
      if (name === 'PublishEvents') continue;
      expect((await local.decide(name, putEvents(bus))).allowed, name).toBe(false);
    }
  });
});
