import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from '@aws-sdk/client-eventbridge';
import { type ChangeEvent, EVENT_SOURCE } from '#lib/events/change-event.ts';

/** PutEvents takes at most 10 entries a call. */
const ENTRIES_PER_CALL = 10;
const ATTEMPTS = 3;

let client: EventBridgeClient | undefined;
const eventBridge = () => {
  client ??= new EventBridgeClient({});
  return client;
};

/**
 * Put events on the service's bus (EVENT_BUS_NAME): each event whole as the `detail`, its type as
 * the `detail-type`, its time as the entry's time. Entries the bus refuses are sent again; an
 * entry still refused after the last attempt throws, and the caller's retry sends them all again
 * (the bus is at least once: consumers dedupe on the event's id).
 */
export async function putOnBus(events: ChangeEvent[]): Promise<void> {
  const busName = process.env.EVENT_BUS_NAME;
  if (!busName) throw new Error('EVENT_BUS_NAME is not set');
  for (let start = 0; start < events.length; start += ENTRIES_PER_CALL) {
    let entries: PutEventsRequestEntry[] = events.slice(start, start + ENTRIES_PER_CALL).map((event) => ({
      EventBusName: busName,
      Source: EVENT_SOURCE,
      DetailType: event.type,
      Detail: JSON.stringify(event),
      Time: new Date(event.occurred_at),
    }));
    for (let attempt = 1; entries.length > 0; attempt++) {
      const result = await eventBridge().send(new PutEventsCommand({ Entries: entries }));
      const refused = entries.filter((_entry, index) => result.Entries?.[index]?.ErrorCode);
      if (refused.length > 0 && attempt >= ATTEMPTS) {
        const reasons = (result.Entries ?? []).flatMap((entry) => (entry.ErrorCode ? [entry.ErrorCode] : []));
        throw new Error(
          `The bus refused ${refused.length} event(s) ${ATTEMPTS} times: ${reasons.join(', ')}`,
        );
      }
      entries = refused;
    }
  }
}
