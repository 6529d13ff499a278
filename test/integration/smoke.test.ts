import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { ROOT_DIR } from '../../infra/local/paths.ts';
import { arrangeAgentTenant } from '../support/agents.ts';

const run = promisify(execFile);

interface SmokeRun {
  code: number;
  lines: string[];
  stderr: string;
}

/** `npm run smoke -- …` as a separate process, its exit code and output lines. */
async function smoke(args: string[]): Promise<SmokeRun> {
  const finished = await run(process.execPath, ['--import', 'tsx', 'infra/smoke.ts', ...args], {
    cwd: ROOT_DIR,
    timeout: 90_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  return { code: finished.code, lines: finished.stdout.trim().split('\n'), stderr: finished.stderr };
}

/** A local server that answers every request with `listener`, for the length of `use`. */
async function withServer<T>(listener: RequestListener, use: (url: string) => Promise<T>): Promise<T> {
  const server = createServer(listener).listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    return await use(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
}

const checkLines = (lines: string[]) => lines.filter((line) => !line.startsWith('skip '));

describe('npm run smoke', () => {
  const harness = inject('harness');

  it('passes every check against a running stack, the agent read included', async () => {
    const tenant = await arrangeAgentTenant();

    const result = await smoke([
      '--url',
      harness.baseUrl,
      '--agent-key',
      tenant.key,
      '--business',
      tenant.businessId,
    ]);

    expect(result.stderr).toBe('');
    expect(result.lines).toEqual([
      'ok   authorization server metadata names the URL as its issuer',
      'ok   protected resource metadata of /mcp',
      'ok   /openapi.json is OpenAPI 3.1 with paths',
      'ok   /mcp without a token answers 401 with WWW-Authenticate',
      'ok   a console route (GET /api/v1/admin/users) without a token answers 401 with WWW-Authenticate',
      `ok   agent read (GET /api/v1/agent/businesses/${tenant.businessId}/faqs) answers 200`,
    ]);
    expect(result.code).toBe(0);
  });

  it('fails the agent read when the key may not read that business, and says why', async () => {
    const tenant = await arrangeAgentTenant();

    const result = await smoke([
      '--url',
      `${harness.baseUrl}/`,
      '--agent-key',
      tenant.key,
      '--business',
      tenant.other.businessId,
    ]);

    expect(result.code).toBe(1);
    const failed = result.lines.filter((line) => line.startsWith('FAIL'));
    expect(failed).toHaveLength(1);
    expect(failed[0]).toBe(
      `FAIL agent read (GET /api/v1/agent/businesses/${tenant.other.businessId}/faqs) answers 200: answered 403 FORBIDDEN: This agent key is not allowed to access this business, expected 200`,
    );
  });

  it('says without an agent key that the agent read was not checked', async () => {
    const result = await smoke(['--url', harness.baseUrl, '--console-url', harness.baseUrl]);

    expect(result.code).toBe(0);
    expect(result.lines.at(-1)).toBe('skip agent read: pass --agent-key agk_… --business <id> to check one');
    expect(checkLines(result.lines).every((line) => line.startsWith('ok   '))).toBe(true);
  });

  it('fails every check, one line each, against a server that answers 200 {} to everything', async () => {
    const result = await withServer(
      (_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
      },
      (url) =>
        smoke([
          '--url',
          url,
          '--agent-key',
          'agk_not_checked_by_this_server',
          '--business',
          '2f1e8a3c-7f43-4c6b-9d1e-0a5b7c9d2e41',
        ]),
    );

    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    expect(result.lines).toEqual([
      expect.stringMatching(
        /^FAIL authorization server metadata .*: issuer is missing, expected "http:\/\/127\.0\.0\.1:\d+"$/,
      ),
      expect.stringMatching(
        /^FAIL protected resource metadata of \/mcp: resource is missing, expected ".*\/mcp"$/,
      ),
      'FAIL /openapi.json is OpenAPI 3.1 with paths: openapi is missing, expected 3.1.x',
      'FAIL /mcp without a token answers 401 with WWW-Authenticate: answered 200 {}, expected 401',
      'FAIL a console route (GET /api/v1/admin/users) without a token answers 401 with WWW-Authenticate: answered 200 {}, expected 401',
      'FAIL agent read (GET /api/v1/agent/businesses/2f1e8a3c-7f43-4c6b-9d1e-0a5b7c9d2e41/faqs) answers 200: answered 200 without a SuccessResponse listing FAQs',
    ]);
  });

  it('fails with the status and body of a server that answers 500, and a 401 without its header', async () => {
    const result = await withServer(
      (request, response) => {
        if (request.url === '/mcp') response.writeHead(401).end();
        else response.writeHead(500, { 'content-type': 'text/html' }).end('<h1>Internal\nServer Error</h1>');
      },
      (url) => smoke(['--url', url]),
    );

    expect(result.code).toBe(1);
    expect(checkLines(result.lines)).toEqual([
      'FAIL authorization server metadata names the URL as its issuer: answered 500 <h1>Internal Server Error</h1>, expected 200',
      'FAIL protected resource metadata of /mcp: answered 500 <h1>Internal Server Error</h1>, expected 200',
      'FAIL /openapi.json is OpenAPI 3.1 with paths: answered 500 <h1>Internal Server Error</h1>, expected 200',
      'FAIL /mcp without a token answers 401 with WWW-Authenticate: answered 401 without a WWW-Authenticate header',
      'FAIL a console route (GET /api/v1/admin/users) without a token answers 401 with WWW-Authenticate: answered 500 <h1>Internal Server Error</h1>, expected 401',
    ]);
  });

  it('fails each check in one line, with no stack trace, when nothing answers at the URL', async () => {
    // A port that was free a moment ago: the server is closed before the smoke check runs.
    const url = await withServer(
      () => {},
      async (address) => address,
    );

    const result = await smoke(['--url', url, '--console-url', `${harness.baseUrl}`]);

    expect(result.code).toBe(1);
    expect(result.stderr).toBe('');
    const [metadata, resource, openApiAssistant, openApiConsole, mcp, consoleRoute] = checkLines(
      result.lines,
    );
    for (const line of [metadata, resource, openApiAssistant, mcp])
      expect(line).toMatch(new RegExp(`^FAIL .*: cannot reach ${url}/\\S+: connect ECONNREFUSED`));
    // The console API is up: its checks pass on their own.
    expect(openApiConsole).toBe('ok   /openapi.json of the console API is OpenAPI 3.1 with paths');
    expect(consoleRoute).toMatch(/^ok {3}a console route/);
  });

  it('refuses bad arguments as usage mistakes: exit 2, one error line and the usage line', async () => {
    const refusals: [string[], string][] = [
      [[], 'error: pass --url <AssistantApiUrl> (and --console-url <ConsoleApiUrl> when it differs)'],
      [['--url', 'ftp://example.com'], 'error: --url must be an http(s) URL such as '],
      [['--url', 'https://example.com/?x=1'], 'error: --url must be an http(s) URL'],
      [
        ['--url', 'https://example.com', '--console-url', 'nope'],
        'error: --console-url must be an http(s) URL',
      ],
      [
        ['--url', 'https://example.com', '--agent-key', 'agk_x'],
        'error: --agent-key and --business go together',
      ],
      [
        [
          '--url',
          'https://example.com',
          '--agent-key',
          'secret',
          '--business',
          '2f1e8a3c-7f43-4c6b-9d1e-0a5b7c9d2e41',
        ],
        'error: --agent-key must be an agent key, agk_…',
      ],
      [
        ['--url', 'https://example.com', '--agent-key', 'agk_x', '--business', 'x'],
        'error: --business must be a business id',
      ],
      [['--url', 'https://example.com', '--verbose'], "error: Unknown option '--verbose'"],
    ];
    for (const [args, message] of refusals) {
      const result = await smoke(args);
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr.trim().split('\n'), args.join(' ')).toEqual([
        expect.stringContaining(message),
        expect.stringMatching(/^Usage: npm run smoke -- --url URL /),
      ]);
      expect(result.lines, args.join(' ')).toEqual(['']);
    }
  }, 180_000);
});
