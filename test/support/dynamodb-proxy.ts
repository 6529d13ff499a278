import { once } from 'node:events';
import {
  createServer,
  request as httpRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';
import type { RunningEmulator } from '../../infra/local/emulators.ts';

/**
 * A loopback HTTP proxy in front of DynamoDB Local that can lose answers, for tests of writes that
 * DynamoDB applied while the caller saw its call fail. Every request goes to `target` unchanged
 * unless a rule says otherwise:
 * - `lose-answer`: forward it (DynamoDB applies it), wait for DynamoDB's answer, and never send it
 *   on: the caller's SDK call times out although the write is done;
 * - `drop`: never forward it: DynamoDB is stalled for this call, nothing happens.
 * `release()` ends both (the callers gave up long before) and forwards everything again.
 */
export type Verdict = 'forward' | 'lose-answer' | 'drop';

export interface DynamoCall {
  /** The API operation, from `x-amz-target` (PutItem, TransactWriteItems, …). */
  operation: string;
  /** The request's JSON body, as text. */
  body: string;
}

export interface DynamoDbProxy extends RunningEmulator {
  /** Judge every later request with `rule`. */
  intercept(rule: (call: DynamoCall) => Verdict): void;
  /** Forward everything again; how many requests lost their answer, or were dropped, meanwhile. */
  release(): { lostAnswers: DynamoCall[]; dropped: DynamoCall[] };
}

export async function startDynamoDbProxy(target: RunningEmulator): Promise<DynamoDbProxy> {
  const upstreamUrl = new URL(target.endpoint);
  let rule: ((call: DynamoCall) => Verdict) | undefined;
  let lostAnswers: DynamoCall[] = [];
  let dropped: DynamoCall[] = [];
  const hanging = new Set<ServerResponse>();

  const hang = (outgoing: ServerResponse) => {
    hanging.add(outgoing);
    outgoing.on('close', () => hanging.delete(outgoing));
  };

  const server = createServer(async (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const call: DynamoCall = {
      operation:
        String(incoming.headers['x-amz-target'] ?? '')
          .split('.')
          .pop() ?? '',
      body: body.toString('utf8'),
    };
    const verdict = rule?.(call) ?? 'forward';
    if (verdict === 'drop') {
      dropped.push(call);
      hang(outgoing);
      return;
    }
    const headers: OutgoingHttpHeaders = { ...incoming.headers };
    delete headers.connection;
    const upstream = httpRequest(upstreamUrl, { method: incoming.method, headers }, (answer) => {
      if (verdict === 'lose-answer') {
        // Read it all, so DynamoDB has answered (the write is applied), then keep the caller waiting.
        answer.resume();
        answer.on('end', () => {
          lostAnswers.push(call);
          hang(outgoing);
        });
        return;
      }
      outgoing.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.headers);
      answer.pipe(outgoing);
    });
    upstream.on('error', (error) => outgoing.destroy(error));
    upstream.end(body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    intercept(next) {
      rule = next;
    },
    release() {
      rule = undefined;
      for (const outgoing of hanging) outgoing.destroy();
      hanging.clear();
      const released = { lostAnswers, dropped };
      lostAnswers = [];
      dropped = [];
      return released;
    },
    async stop() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
      await target.stop();
    },
  };
}
