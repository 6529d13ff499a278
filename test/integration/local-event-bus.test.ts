import { randomUUID } from 'node:crypto';
import { EventBridgeClient, PutEventsCommand } from '@aws-sdk/client-eventbridge';
import { describe, expect, inject, it } from 'vitest';
import { EVENTS_JSON_PATH, EVENTS_PAGE_PATH } from '../../infra/local/events/events-page.ts';
import type { BusEvent } from '../../infra/local/events/local-bus.ts';
import { LOCAL_AWS } from '../../infra/local/local-names.ts';

const { baseUrl, env } = inject('harness');

/** The SDK's EventBridge client as a function has it: its endpoint from AWS_ENDPOINT_URL_EVENTBRIDGE. */
const eventBridge = () => new EventBridgeClient({ ...LOCAL_AWS });

const latest = async (): Promise<BusEvent[]> =>
  ((await (await fetch(`${baseUrl}${EVENTS_JSON_PATH}`)).json()) as { events: BusEvent[] }).events;

describe('the local EventBridge bus', () => {
  it('is where functions’ EventBridge clients send: the harness gives them its endpoint', () => {
    expect(env.AWS_ENDPOINT_URL_EVENTBRIDGE).toMatch(new RegExp(`^${baseUrl}/`));
    expect(process.env.AWS_ENDPOINT_URL_EVENTBRIDGE).toBe(env.AWS_ENDPOINT_URL_EVENTBRIDGE);
  });

  it('accepts PutEvents from the real EventBridge client, answers per entry as EventBridge does, and lists what it took, newest first', async () => {
    const business = randomUUID();
    const detail = (type: string) =>
      JSON.stringify({
        id: randomUUID(),
        type,
        business_id: business,
        entity: 'faq',
        record_id: 'r1',
        version: 1,
      });
    const client = eventBridge();
    const answer = await client.send(
      new PutEventsCommand({
        Entries: [
          {
            EventBusName: 'business-platform-local',
            Source: 'business-platform',
            DetailType: 'record.created',
            Detail: detail('record.created'),
          },
          {
            EventBusName: 'business-platform-local',
            Source: 'business-platform',
            DetailType: 'record.updated',
            Detail: '[1]',
          },
          {
            EventBusName: 'business-platform-local',
            Source: 'business-platform',
            DetailType: 'record.updated',
            Detail: detail('record.updated'),
          },
        ],
      }),
    );
    client.destroy();

    expect(answer.FailedEntryCount).toBe(1);
    expect(answer.Entries?.[0]?.EventId).toEqual(expect.any(String));
    expect(answer.Entries?.[1]).toMatchObject({ ErrorCode: 'MalformedDetail' });
    const ours = (await latest()).filter((event) => event.detail.business_id === business);
    expect(ours.map((event) => event.detail_type)).toEqual(['record.updated', 'record.created']);
    expect(ours.map((event) => event.id)).toEqual([
      answer.Entries?.[2]?.EventId,
      answer.Entries?.[0]?.EventId,
    ]);
    expect(ours[0]).toMatchObject({ event_bus_name: 'business-platform-local', source: 'business-platform' });
  });

  it('refuses what PutEvents refuses: more than 10 entries, and any other operation', async () => {
    const client = eventBridge();
    const entry = { Source: 's', DetailType: 'd', Detail: '{}' };
    await expect(
      client.send(new PutEventsCommand({ Entries: Array.from({ length: 11 }, () => entry) })),
    ).rejects.toMatchObject({ name: 'ValidationException' });
    client.destroy();
    const other = await fetch(env.AWS_ENDPOINT_URL_EVENTBRIDGE as string, {
      method: 'POST',
      headers: { 'x-amz-target': 'AWSEvents.ListRules', 'content-type': 'application/x-amz-json-1.1' },
      body: '{}',
    });
    expect(other.status).toBe(400);
    expect(await other.json()).toMatchObject({ __type: 'UnknownOperationException' });
  });

  it('shows the latest events on the dev console’s events page, escaped', async () => {
    const business = randomUUID();
    const client = eventBridge();
    const { Entries } = await client.send(
      new PutEventsCommand({
        Entries: [
          {
            Source: 'business-platform',
            DetailType: 'record.updated',
            Detail: JSON.stringify({
              id: 'e1',
              business_id: business,
              entity: '<script>alert(1)</script>',
              record_id: 'r1',
            }),
          },
        ],
      }),
    );
    client.destroy();

    const page = await fetch(`${baseUrl}${EVENTS_PAGE_PATH}`);
    const html = await page.text();
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    expect(html).toContain(business);
    expect(Entries?.[0]?.EventId).toEqual(expect.any(String));
    expect(html).toContain('<td>e1</td>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;/r1');
    expect(html).not.toContain('<script>alert(1)');
  });
});
