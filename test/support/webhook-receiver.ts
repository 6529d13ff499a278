import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

/**
 * A webhook endpoint for tests: a real HTTP server on a loopback port that records every request
 * and answers with whatever status the test sets (200 unless told), so tests see what a
 * receiver sees and verify it with the Standard Webhooks reference library, as a receiver would.
 */
export interface ReceivedDelivery {
  /** The request's path: one receiver can stand for several endpoints. */
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The parsed body: `{type, timestamp, data}`. */
  message: { type: string; timestamp: string; data: Record<string, unknown> };
  /** The status it was answered with. */
  answered: number;
}

export interface WebhookReceiver {
  url: string;
  received: ReceivedDelivery[];
  /** The status the next requests are answered with. */
  answer(status: number): void;
  /** Verifies a delivery with one secret the way a receiver's library does; throws if it does not verify. */
  verify(delivery: ReceivedDelivery, secret: string): unknown;
  /** Resolves once `count` requests have arrived in all. */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedDelivery[]>;
  close(): Promise<void>;
}

export async function startWebhookReceiver(path = '/hooks'): Promise<WebhookReceiver> {
  const received: ReceivedDelivery[] = [];
  let status = 200;
  const waiters: (() => void)[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      received.push({
        path: request.url ?? '',
        headers: request.headers,
        body,
        message: JSON.parse(body),
        answered: status,
      });
      response.statusCode = status;
      response.end(status < 300 ? 'ok' : 'not now');
      for (const wake of waiters.splice(0)) wake();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${path}`,
    received,
    answer: (next) => {
      status = next;
    },
    verify: (delivery, secret) =>
      new Webhook(secret).verify(delivery.body, {
        'webhook-id': String(delivery.headers['webhook-id']),
        'webhook-timestamp': String(delivery.headers['webhook-timestamp']),
        'webhook-signature': String(delivery.headers['webhook-signature']),
      }),
    async waitFor(count, timeoutMs = 20_000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) {
          throw new Error(`The receiver got ${received.length} of ${count} deliveries in ${timeoutMs} ms`);
        }
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 200);
        });
      }
      return received;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
