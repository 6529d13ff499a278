import { describe, expect, it } from 'vitest';
import {
  type BusEvent,
  eventLogLine,
  KEPT_EVENTS,
  LocalEventBus,
} from '../../infra/local/events/local-bus.ts';

const putEvents = (bus: LocalEventBus, detail: object) =>
  bus.handle({
    method: 'POST',
    target: 'AWSEvents.PutEvents',
    body: Buffer.from(
      JSON.stringify({
        Entries: [
          {
            EventBusName: 'business-platform-local',
            Source: 'business-platform',
            DetailType: 'record.updated',
            Detail: JSON.stringify(detail),
          },
        ],
      }),
    ),
  });

describe('the local bus', () => {
  it('names each event in one request-log line: type, business, entity/record, event id, bus', () => {
    const seen: BusEvent[] = [];
    const bus = new LocalEventBus((event) => seen.push(event));
    putEvents(bus, { id: 'e1', business_id: 'b1', entity: 'faq', record_id: 'r1' });
    putEvents(bus, { id: 'e2', business_id: 'b1', entity: 'blog_schedule', record_id: null });

    expect(seen.map(eventLogLine)).toEqual([
      'EVENT record.updated business=b1 faq/r1 id=e1 → business-platform-local',
      'EVENT record.updated business=b1 blog_schedule/- id=e2 → business-platform-local',
    ]);
  });

  it(`keeps the latest ${KEPT_EVENTS} events, newest first`, () => {
    const bus = new LocalEventBus();
    for (let n = 0; n < KEPT_EVENTS + 5; n += 1) putEvents(bus, { id: `e${n}` });

    const latest = bus.latest();
    expect(latest).toHaveLength(KEPT_EVENTS);
    expect(latest[0]?.detail.id).toBe(`e${KEPT_EVENTS + 4}`);
    expect(latest.at(-1)?.detail.id).toBe('e5');
  });
});
