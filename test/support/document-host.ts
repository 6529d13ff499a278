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
 * URLs. The http server also listens on a second loopback address, 127.0.0.2: another host, for
 * the tests that use up one host's fetch budget without touching the one every other test uses.
 * It starts before the harness, whose SSRF guard is told to allow exactly these three origins
 * (SAFE_FETCH_ALLOW), as production never is.
 *
 *   PUT /__script/<path>  {status, headers?, body, dripMs?}   what GET /<path> answers from now on
 *                         (dripMs: the body one byte at a time, that many ms apart)
 *   GET /__hits/<path>    {hits: n, abandoned: n}, over every origin: requests, and those whose
 *                         client hung up before the whole body was sent
 */
export interface DocumentHost {
  /** http://127.0.0.1:<port>: scripting, and documents. */
  origin: string;
  /** https://127.0.0.1:<port>: the same documents. */
  httpsOrigin: string;
  /** http://127.0.0.2:<port>: the same documents on another host. */
  otherHostOrigin: string;
  /** The certificate authority file that trusts httpsOrigin. */
  caFile: string;
  stop(): Promise<void>;
}
interface Scripted {
  status: number;
  headers?: Record<string, string>;
  body: string;
  /** Send the body one byte at a time, this many milliseconds apart (a drip-fed answer). */
  dripMs?: number;
}

export async function startDocumentHost(): Promise<DocumentHost> {
  const scripts = new Map<string, Scripted>();
  const hits = new Map<string, number>();
  const abandoned = new Map<string, number>();
  const handler: RequestListener = async (request, response) => {
    const path = new URL(request.url ?? '/', 'http://x').pathname;
    if (request.method === 'PUT' && path.startsWith('/__script/')) {
      scripts.set(path.slice('/__script'.length), JSON.parse(await readAll(request)) as Scripted);
      response.writeHead(204).end();
      return;
    }
    if (path.startsWith('/__hits/')) {
      response.writeHead(200, { 'content-type': 'application/json' });
      const counted = path.slice('/__hits'.length);
      response.end(JSON.stringify({ hits: hits.get(counted) ?? 0, abandoned: abandoned.get(counted) ?? 0 }));
      return;
    }
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const scripted = scripts.get(path);
    if (!scripted) {
      response.writeHead(404).end();
      return;
    }
    response.writeHead(scripted.status, scripted.headers ?? { 'content-type': 'application/json' });
    response.on('close', () => {
      if (!response.writableFinished) abandoned.set(path, (abandoned.get(path) ?? 0) + 1);
    });
    if (scripted.dripMs === undefined) {
      response.end(scripted.body);
      return;
    }
    const bytes = Buffer.from(scripted.body);
    for (let sent = 0; sent < bytes.length && !response.destroyed; sent++) {
      response.write(bytes.subarray(sent, sent + 1));
      await new Promise((resolve) => setTimeout(resolve, scripted.dripMs));
    }
    response.end();
  };
  const { key, cert } = await selfSignedCertificate(['127.0.0.1']);
  const certDir = mkdtempSync(join(tmpdir(), 'bps-document-host-'));
  const caFile = join(certDir, 'cert.pem');
  writeFileSync(caFile, cert);
  const http = createServer(handler);
  const https = createHttpsServer({ key, cert }, handler);
  const otherHost = createServer(handler);
  const listen = async (server: Server, address = '127.0.0.1') => {
    server.listen(0, address);
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
    otherHostOrigin: `http://127.0.0.2:${await listen(otherHost, '127.0.0.2')}`,
    caFile,
    async stop() {
      await Promise.all([close(http), close(https), close(otherHost)]);
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
  return (await documentRequests(origin, path)).hits;
}

/** Requests the document host received at `path`, and how many of them the client abandoned. */
export async function documentRequests(
  origin: string,
  path: string,
): Promise<{ hits: number; abandoned: number }> {
  return (await (await fetch(`${origin}/__hits${path}`)).json()) as { hits: number; abandoned: number };
}
