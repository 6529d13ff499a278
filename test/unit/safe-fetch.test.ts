import { createServer as createHttpServer, type RequestListener, type Server } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { getCACertificates, setDefaultCACertificates, type TLSSocket } from 'node:tls';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type SafeFetchError, type SafeFetchOptions, safeFetch } from '#lib/net/safe-fetch.ts';
import { selfSignedCertificate } from '../support/self-signed-certificate.ts';

const OPTIONS: SafeFetchOptions = { maxBytes: 1024, timeoutMs: 2_000 };

// SAFE_FETCH_ALLOW is what lets these tests reach loopback at all; every test starts without it.
const allowListBefore = process.env.SAFE_FETCH_ALLOW;
function allowOrigins(...origins: string[]) {
  process.env.SAFE_FETCH_ALLOW = origins.join(',');
}
afterEach(() => {
  if (allowListBefore === undefined) delete process.env.SAFE_FETCH_ALLOW;
  else process.env.SAFE_FETCH_ALLOW = allowListBefore;
});

async function failureOf(fetching: Promise<unknown>): Promise<SafeFetchError['reason']> {
  const error = await fetching.then(
    () => expect.fail('the fetch succeeded'),
    (thrown: unknown) => thrown,
  );
  expect(error).toMatchObject({ name: 'SafeFetchError' });
  return (error as SafeFetchError).reason;
}

describe('safeFetch refuses hostile URLs before connecting', () => {
  it.each([
    ['decimal IPv4 literal', 'https://2130706433/'],
    ['octal IPv4 literal', 'https://0177.0.0.1/'],
    ['hexadecimal IPv4 literal', 'https://0x7f.0.0.1/'],
    ['single hexadecimal number', 'https://0x7f000001/'],
    ['shortened IPv4 literal', 'https://127.1/'],
  ])('reads a %s the way the connection would, as 127.0.0.1', async (_form, url) => {
    const parsedHost = new URL(url).hostname;

    const reason = await failureOf(safeFetch(url, OPTIONS));

    expect(parsedHost).toBe('127.0.0.1');
    expect(reason).toBe('forbidden_address');
  });

  it.each([
    ['http://example.com/doc.json', 'invalid_url'],
    ['http://127.0.0.1/', 'invalid_url'],
    ['https://user:pw@example.com/', 'invalid_url'],
    ['https://user@example.com/', 'invalid_url'],
    ['file:///etc/passwd', 'invalid_url'],
    ['javascript:alert(1)', 'invalid_url'],
    ['data:application/json,{}', 'invalid_url'],
    ['ftp://example.com/', 'invalid_url'],
    ['not a url', 'invalid_url'],
    ['https://[::1]/', 'forbidden_address'],
    ['https://[::ffff:127.0.0.1]/', 'forbidden_address'],
    ['https://[::ffff:7f00:1]/', 'forbidden_address'],
    ['https://[64:ff9b::127.0.0.1]/', 'forbidden_address'],
    ['https://169.254.169.254/latest/meta-data', 'forbidden_address'],
    ['https://[fe80::1]/', 'forbidden_address'],
    ['https://[fd00:ec2::254]/', 'forbidden_address'],
    ['https://10.0.0.1/', 'forbidden_address'],
    ['https://192.168.0.1:8443/', 'forbidden_address'],
    ['https://0.0.0.0/', 'forbidden_address'],
    ['https://localhost/', 'forbidden_address'],
    ['https://LocalHost:9443/client.json', 'forbidden_address'],
  ])('%s → %s', async (url, expectedReason) => {
    const reason = await failureOf(safeFetch(url, OPTIONS));

    expect(reason).toBe(expectedReason);
  });

  it('does not let an allow-listed origin vouch for another port or scheme', async () => {
    allowOrigins('http://127.0.0.1:4321');

    const otherPort = await failureOf(safeFetch('https://127.0.0.1:4322/', OPTIONS));
    const otherScheme = await failureOf(safeFetch('http://127.0.0.1:4322/', OPTIONS));

    expect(otherPort).toBe('forbidden_address');
    expect(otherScheme).toBe('invalid_url');
  });
});

/** A loopback server that records every connection and request it sees. */
interface TestServer {
  origin: string;
  connections: number;
  requests: string[];
  close(): Promise<void>;
}

async function listen(server: Server, scheme: 'http' | 'https', host: string): Promise<TestServer> {
  const seen: TestServer = {
    origin: '',
    connections: 0,
    requests: [],
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  server.on('connection', () => seen.connections++);
  server.prependListener('request', (request) => seen.requests.push(request.url ?? ''));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  seen.origin = `${scheme}://${host}:${(server.address() as AddressInfo).port}`;
  return seen;
}

const startHttpServer = (handler: RequestListener) => listen(createHttpServer(handler), 'http', '127.0.0.1');

describe('safeFetch against a real server', () => {
  let server: TestServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  it('returns the status, lower-cased headers and body of a 200', async () => {
    let acceptSent: string | undefined;
    server = await startHttpServer((request, response) => {
      acceptSent = request.headers.accept;
      response.setHeader('Content-Type', 'application/json');
      response.setHeader('Set-Cookie', ['a=1', 'b=2']);
      response.end('{"client_id":"https://app.example/client.json"}');
    });
    allowOrigins(server.origin);

    const fetched = await safeFetch(`${server.origin}/client.json?v=1`, {
      ...OPTIONS,
      accept: 'application/json',
    });

    expect(fetched.status).toBe(200);
    expect(JSON.parse(fetched.body.toString('utf8'))).toEqual({
      client_id: 'https://app.example/client.json',
    });
    expect(fetched.headers['content-type']).toBe('application/json');
    expect(fetched.headers['set-cookie']).toBe('a=1, b=2');
    expect(fetched.url).toBe(`${server.origin}/client.json?v=1`);
    expect(acceptSent).toBe('application/json');
    expect(server.requests).toEqual(['/client.json?v=1']);
  });

  it('returns a non-redirect error status for the caller to judge', async () => {
    server = await startHttpServer((_request, response) => {
      response.statusCode = 404;
      response.end('missing');
    });
    allowOrigins(server.origin);

    const fetched = await safeFetch(`${server.origin}/gone`, OPTIONS);

    expect(fetched.status).toBe(404);
    expect(fetched.body.toString('utf8')).toBe('missing');
  });

  it('refuses a redirect without requesting its target', async () => {
    server = await startHttpServer((request, response) => {
      if (request.url === '/start') response.writeHead(302, { location: '/target' }).end();
      else response.end('the target');
    });
    allowOrigins(server.origin);

    const reason = await failureOf(safeFetch(`${server.origin}/start`, OPTIONS));

    expect(reason).toBe('redirect');
    expect(server.requests).toEqual(['/start']);
  });

  it('accepts a body of exactly maxBytes', async () => {
    server = await startHttpServer((_request, response) => response.end(Buffer.alloc(1024, 'x')));
    allowOrigins(server.origin);

    const fetched = await safeFetch(`${server.origin}/`, OPTIONS);

    expect(fetched.body.length).toBe(1024);
  });

  it('refuses a body whose declared content-length is over maxBytes', async () => {
    server = await startHttpServer((_request, response) => {
      response.setHeader('Content-Length', 1025);
      response.end(Buffer.alloc(1025, 'x'));
    });
    allowOrigins(server.origin);

    const reason = await failureOf(safeFetch(`${server.origin}/`, OPTIONS));

    expect(reason).toBe('too_large');
  });

  it('stops reading a chunked body once it passes maxBytes', async () => {
    let writtenBytes = 0;
    server = await startHttpServer((_request, response) => {
      // No content-length: the size only shows while streaming, and the stream never ends by itself.
      const timer = setInterval(() => {
        writtenBytes += 512;
        response.write(Buffer.alloc(512, 'x'));
      }, 5);
      response.on('close', () => clearInterval(timer));
    });
    allowOrigins(server.origin);

    const reason = await failureOf(safeFetch(`${server.origin}/`, OPTIONS));

    expect(reason).toBe('too_large');
    expect(writtenBytes).toBeGreaterThan(1024);
  });

  it('times out on a server that never answers', async () => {
    server = await startHttpServer(() => {});
    allowOrigins(server.origin);

    const reason = await failureOf(safeFetch(`${server.origin}/`, { ...OPTIONS, timeoutMs: 300 }));

    expect(reason).toBe('timeout');
    expect(server.requests).toEqual(['/']);
  });

  it('times out on a body that stops arriving', async () => {
    server = await startHttpServer((_request, response) => {
      response.writeHead(200, { 'content-length': '100' });
      response.write('only the start');
    });
    allowOrigins(server.origin);

    const reason = await failureOf(safeFetch(`${server.origin}/`, { ...OPTIONS, timeoutMs: 300 }));

    expect(reason).toBe('timeout');
  });

  it('reports a refused connection as a network failure', async () => {
    const closed = await startHttpServer(() => {});
    await closed.close();
    allowOrigins(closed.origin);

    const reason = await failureOf(safeFetch(`${closed.origin}/`, OPTIONS));

    expect(reason).toBe('network');
  });

  it('refuses loopback when the origin is not allow-listed, without connecting', async () => {
    server = await startHttpServer((_request, response) => response.end('{}'));
    const httpsOnTheSamePort = server.origin.replace('http:', 'https:');
    allowOrigins('http://127.0.0.1:1');

    const overHttps = await failureOf(safeFetch(`${httpsOnTheSamePort}/`, OPTIONS));
    const overHttp = await failureOf(safeFetch(`${server.origin}/`, OPTIONS));

    expect(overHttps).toBe('forbidden_address');
    expect(overHttp).toBe('invalid_url');
    expect(server.connections).toBe(0);
  });
});

describe('safeFetch over TLS', () => {
  let key: string;
  let certificate: string;
  const defaultCertificates = getCACertificates('default');
  let server: TestServer;
  let serverNames: TLSSocket['servername'][];

  beforeAll(async () => {
    // A self-signed certificate for localhost, trusted only inside this test file.
    ({ key, cert: certificate } = await selfSignedCertificate(['localhost', '127.0.0.1']));
    setDefaultCACertificates([...defaultCertificates, certificate]);
  });

  afterAll(() => {
    setDefaultCACertificates(defaultCertificates);
  });

  async function startHttpsServer(host: string) {
    serverNames = [];
    server = await listen(
      createHttpsServer({ key, cert: certificate }, (request, response) => {
        serverNames.push((request.socket as TLSSocket).servername);
        response.setHeader('content-type', 'application/json');
        response.end('{"ok":true}');
      }),
      'https',
      host,
    );
  }

  afterEach(() => server.close());

  it('connects to the checked address but sends the host name for SNI and the certificate check', async () => {
    await startHttpsServer('localhost');
    allowOrigins(server.origin);

    const fetched = await safeFetch(`${server.origin}/client.json`, OPTIONS);

    expect(fetched.status).toBe(200);
    expect(fetched.body.toString('utf8')).toBe('{"ok":true}');
    expect(serverNames).toEqual(['localhost']);
  });

  it('fetches an allow-listed IP literal origin, with no SNI', async () => {
    await startHttpsServer('127.0.0.1');
    allowOrigins(server.origin);

    const fetched = await safeFetch(`${server.origin}/client.json`, OPTIONS);

    expect(fetched.status).toBe(200);
    expect(serverNames).toEqual([false]);
  });

  it('refuses the same server when its origin is not allow-listed, without connecting', async () => {
    await startHttpsServer('localhost');

    const reason = await failureOf(safeFetch(`${server.origin}/client.json`, OPTIONS));

    expect(reason).toBe('forbidden_address');
    expect(server.connections).toBe(0);
  });
});
