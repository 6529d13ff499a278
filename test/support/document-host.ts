import { once } from 'node:events';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback web server that plays the client's own website in the OAuth tests: it serves Client
 * ID Metadata Documents (and whatever else a test scripts) at paths the tests configure over HTTP,
 * and counts the requests each path received. It starts before the harness, whose SSRF guard is
 * told to allow exactly this origin (SAFE_FETCH_ALLOW), as production never is.
 *
 *   PUT /__script/<path>  {status, headers?, body}   what GET /<path> answers from now on
 *   GET /__hits/<path>                               {hits: n}
 */
interface Scripted {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

export async function startDocumentHost(): Promise<{ origin: string; stop(): Promise<void> }> {
  const scripts = new Map<string, Scripted>();
  const hits = new Map<string, number>();
  const server = createServer(async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    if (request.method === 'PUT' && path.startsWith('/__script/')) {
      scripts.set(path.slice('/__script'.length), JSON.parse(await readAll(request)) as Scripted);
      response.writeHead(204).end();
      return;
    }
    if (path.startsWith('/__hits/')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify({ hits: hits.get(path.slice('/__hits'.length)) ?? 0 }));
      return;
    }
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const scripted = scripts.get(path);
    if (!scripted) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(scripted.status, scripted.headers ?? { 'content-type': 'application/json' });
    response.end(scripted.body);
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function readAll(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** Script what the document host answers at `path` (a path starting with /). */
export async function scriptDocument(origin: string, path: string, response: Scripted): Promise<string> {
  await fetch(`${origin}/__script${path}`, { method: 'PUT', body: JSON.stringify(response) });
  return `${origin}${path}`;
}

export async function documentHits(origin: string, path: string): Promise<number> {
  return ((await (await fetch(`${origin}/__hits${path}`)).json()) as { hits: number }).hits;
}
