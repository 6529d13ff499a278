import { randomUUID } from 'node:crypto';
import type { HttpResponse } from '../lambda-runner.ts';

/**
 * The local stand-in for EventBridge: the harness answers `AWSEvents.PutEvents` (AWS JSON 1.1,
 * `x-amz-target`) at LOCAL_BUS_PATH, and functions reach it through the SDK's own
 * `AWS_ENDPOINT_URL_EVENTBRIDGE`, so the publisher's real EventBridge client puts its events here
 * as it puts them on the bus in AWS. It keeps the latest events in memory (the dev console's
 * events page, events-page.ts) and tells the harness of each one (the terminal's request log).
 * Rules, targets and archives are AWS's: the bus only receives.
 */
export const LOCAL_BUS_PATH = '/local-eventbridge';

export const isLocalBusPath = (path: string) =>
  path === LOCAL_BUS_PATH || path.startsWith(`${LOCAL_BUS_PATH}/`);

/** An event as the bus received it. */
export interface BusEvent {
  id: string;
  /** When the bus received it (ISO 8601). */
  received_at: string;
  event_bus_name: string;
  source: string;
  detail_type: string;
  /** The Detail as sent (a JSON object). */
  detail: Record<string, unknown>;
  resources: string[];
}

/** PutEvents' limits: entries per call, bytes per call. */
const MAX_ENTRIES = 10;
const MAX_REQUEST_BYTES = 256 * 1024;
export const KEPT_EVENTS = 200;

interface PutEventsEntry {
  Source?: unknown;
  DetailType?: unknown;
  Detail?: unknown;
  EventBusName?: unknown;
  Resources?: unknown;
}

type EntryResult = { EventId: string } | { ErrorCode: string; ErrorMessage: string };

export class LocalEventBus {
  private readonly events: BusEvent[] = [];

  constructor(private readonly onEvent: (event: BusEvent) => void = () => undefined) {}

  /** The events received, newest first (at most KEPT_EVENTS). */
  latest(): BusEvent[] {
    return [...this.events].reverse();
  }

  /** Answer one request to LOCAL_BUS_PATH as EventBridge answers it. */
  handle(request: { method: string; target: string | undefined; body: Buffer }): HttpResponse {
    if (request.method !== 'POST') return awsError(405, 'UnknownOperationException', 'Use POST');
    if (request.target !== 'AWSEvents.PutEvents') {
      return awsError(
        400,
        'UnknownOperationException',
        `The local bus answers AWSEvents.PutEvents only, not ${request.target}`,
      );
    }
    if (request.body.length > MAX_REQUEST_BYTES) {
      return awsError(
        400,
        'ValidationException',
        'Total size of the entries in the request is over the limit.',
      );
    }
    let input: { Entries?: unknown };
    try {
      input = JSON.parse(request.body.toString('utf8'));
    } catch {
      return awsError(400, 'SerializationException', 'The request body is not JSON');
    }
    const entries = input?.Entries;
    if (!Array.isArray(entries) || entries.length === 0 || entries.length > MAX_ENTRIES) {
      return awsError(
        400,
        'ValidationException',
        `1 validation error detected: Value at 'entries' failed to satisfy constraint: Member must have length between 1 and ${MAX_ENTRIES}`,
      );
    }
    const results = entries.map((entry: PutEventsEntry) => this.put(entry));
    return {
      statusCode: 200,
      headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-requestid': randomUUID() },
      body: Buffer.from(
        JSON.stringify({
          FailedEntryCount: results.filter((result) => 'ErrorCode' in result).length,
          Entries: results,
        }),
      ),
    };
  }

  private put(entry: PutEventsEntry): EntryResult {
    const { Source, DetailType, Detail } = entry ?? {};
    if (typeof Source !== 'string' || typeof DetailType !== 'string' || typeof Detail !== 'string') {
      return {
        ErrorCode: 'InvalidArgument',
        ErrorMessage: 'Parameters Source, DetailType and Detail must be specified.',
      };
    }
    let detail: unknown;
    try {
      detail = JSON.parse(Detail);
    } catch {
      detail = undefined;
    }
    if (detail === null || typeof detail !== 'object' || Array.isArray(detail)) {
      return { ErrorCode: 'MalformedDetail', ErrorMessage: 'Detail is malformed.' };
    }
    const event: BusEvent = {
      id: randomUUID(),
      received_at: new Date().toISOString(),
      event_bus_name: typeof entry.EventBusName === 'string' ? entry.EventBusName : 'default',
      source: Source,
      detail_type: DetailType,
      detail: detail as Record<string, unknown>,
      resources: Array.isArray(entry.Resources) ? entry.Resources.map(String) : [],
    };
    this.events.push(event);
    if (this.events.length > KEPT_EVENTS) this.events.splice(0, this.events.length - KEPT_EVENTS);
    this.onEvent(event);
    return { EventId: event.id };
  }
}

/** The request log's line for an event: its type, business, record and (change event) id. */
export function eventLogLine(event: BusEvent): string {
  const { detail } = event;
  const text = (value: unknown) => (typeof value === 'string' && value !== '' ? value : '-');
  const record = `${text(detail.entity)}/${text(detail.record_id)}`;
  return `EVENT ${event.detail_type} business=${text(detail.business_id)} ${record} id=${text(detail.id)} → ${event.event_bus_name}`;
}

function awsError(statusCode: number, type: string, message: string): HttpResponse {
  return {
    statusCode,
    headers: { 'content-type': 'application/x-amz-json-1.1', 'x-amzn-errortype': type },
    body: Buffer.from(JSON.stringify({ __type: type, message })),
  };
}
