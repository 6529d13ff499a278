import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { selfSignedCertificate } from './self-signed-certificate.ts';

/**
 * A loopback web server that plays the client's own website in the OAuth tests: it serves Client
 * ID Metadata Documents (and whatever else a test scripts) at paths the tests configure over HTTP,
 * and counts the requests each path received. It serves the same paths over http and over https
 * (a self-signed certificate for 127.0.0.1, which the harness is told to trust through
 * NODE_EXTRA_CA_CERTS), because clients such as the MCP SDK only accept https document
 * URLs. It starts before the harness, whose SSRF guard is told to allow exactly these two origins
 * (SAFE_FETCH_ALLOW), as production never is.
 *
 *   PUT /__script/<path>  {status, headers?, body}   what GET /<path> answers from now on (http)
 *   GET /__hits/<path>                               {hits: n}, over both origins
 */
export interface DocumentHost {
  /** http://127.0.0.1:<port>: scripting, and documents. */
  origin: string;
  /** https://127.0.0.1:<port>: the same documents. */
  httpsOrigin: string;
  /** The certificate authority file that trusts httpsOrigin. */
  caFile: string;
  stop(): Promise<void>;
}
interface Scripted {
  status: number;
  headers?: Record<string, string>;
  body: string;
}

export async function startDocumentHost(): Promise<DocumentHost> {
  const scripts = new Map<string, Scripted>();
  const hits = new Map<string, number>();
  const handler: RequestListener = async (request, response) => {
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
  };
  const { key, cert } = await selfSignedCertificate(['127.0.0.1']);
  const certDir = mkdtempSync(join(tmpdir(), 'bps-document-host-'));
  const caFile = join(certDir, 'cert.pem');
  writeFileSync(caFile, cert);
  const http = createServer(handler);
  const https = createHttpsServer({ key, cert }, handler);
  const listen = async (server: Server) => {
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    return (server.address() as AddressInfo).port;
  };
  const close = (server: Server) =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return {
    origin: `http://127.0.0.1:${await listen(http)}`,
    httpsOrigin: `https://127.0.0.1:${await listen(https)}`,
    caFile,
    async stop() {
      await Promise.all([close(http), close(https)]);
      rmSync(certDir, { recursive: true, force: true });
    },
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
