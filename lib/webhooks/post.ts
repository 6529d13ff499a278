import { SafeFetchError, safeFetch } from '#lib/net/safe-fetch.ts';
import { loopbackAllowed } from '#lib/webhooks/endpoint.ts';
import { signedHeaders } from '#lib/webhooks/secrets.ts';

/**
 * One POST of one message to one endpoint (docs/webhooks.md, 'Deliveries'), through the SSRF
 * guard (the URL checked again, DNS pinned to the checked addresses, no redirect followed).
 * A 2xx within DELIVERY_TIMEOUT_MS is delivered; anything else is a failure, described.
 * At most RESPONSE_READ_BYTES of the answer are read, and none of it is kept.
 */
export const DELIVERY_TIMEOUT_MS = 10_000;
export const RESPONSE_READ_BYTES = 64 * 1024;

/** What a webhook request carries: Standard Webhooks' `{type, timestamp, data}`, data the event. */
export interface WebhookMessage {
  /** The event's id (`webhook-id`). */
  id: string;
  type: string;
  timestamp: string;
  data: unknown;
}

export const messageBody = (message: WebhookMessage): string =>
  JSON.stringify({ type: message.type, timestamp: message.timestamp, data: message.data });

export interface PostResult {
  ok: boolean;
  status: number | null;
  error: string | null;
  durationMs: number;
}

export async function postMessage(
  url: string,
  message: WebhookMessage,
  secrets: readonly string[],
): Promise<PostResult> {
  const body = messageBody(message);
  const started = performance.now();
  const took = () => Math.round(performance.now() - started);
  try {
    const response = await safeFetch(url, {
      method: 'POST',
      // Stamped when sent, on the wall clock: the receiver checks the stamp against its own.
      headers: signedHeaders({ id: message.id, body }, secrets, new Date()),
      body,
      maxBytes: RESPONSE_READ_BYTES,
      truncate: true,
      timeoutMs: DELIVERY_TIMEOUT_MS,
      allowLoopback: loopbackAllowed(),
    });
    const ok = response.status >= 200 && response.status < 300;
    return { ok, status: response.status, error: ok ? null : `HTTP ${response.status}`, durationMs: took() };
  } catch (error) {
    if (!(error instanceof SafeFetchError)) throw error;
    return { ok: false, status: null, error: `${error.reason}: ${error.message}`, durationMs: took() };
  }
}
