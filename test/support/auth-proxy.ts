import { once } from 'node:events';
import { createServer, request as httpRequest, type OutgoingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback reverse proxy that puts a bearer token on every request, for clients that cannot
 * authorize themselves (the MCP conformance suite sends no credentials). Every request to it, on
 * any path, goes to `target` with the same method, headers and body (streamed both ways), plus
 * `authorization: Bearer <token>`; the answer comes back with its status and headers unchanged.
 *
 * It stands in for the upstream at an origin of its own, so it translates that origin as a
 * front door would: Host becomes the upstream's, and an Origin equal to the proxy's own becomes
 * the upstream's origin. Any other Origin passes through, for the upstream to judge.
 */
export interface AuthProxy {
  /** http://127.0.0.1:<port>: requests to any path here go to `target`. */
  origin: string;
  /** How many requests it forwarded. */
  forwarded(): number;
  stop(): Promise<void>;
}

export async function startAuthProxy(options: { target: string; token: string }): Promise<AuthProxy> {
  const target = new URL(options.target);
  let origin = '';
  let forwarded = 0;
  const server = createServer((incoming, outgoing) => {
    forwarded += 1;
    const headers: OutgoingHttpHeaders = { ...incoming.headers };
    delete headers.host;
    delete headers.connection;
    headers.authorization = `Bearer ${options.token}`;
    if (incoming.headers.origin === origin) headers.origin = target.origin;
    const upstream = httpRequest(target, { method: incoming.method, headers }, (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.statusMessage, answer.headers);
      answer.pipe(outgoing);
    });
    upstream.on('error', (error) => {
      if (outgoing.headersSent) outgoing.destroy(error);
      else outgoing.writeHead(502, { 'content-type': 'text/plain' }).end(`proxy: ${error.message}`);
    });
    incoming.on('aborted', () => upstream.destroy());
    incoming.pipe(upstream);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    origin,
    forwarded: () => forwarded,
    async stop() {
      server.closeAllConnections();
      server.close();
      await once(server, 'close');
    },
  };
}
