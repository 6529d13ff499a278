/**
 * What `npm run smoke` checks against a running service (a deployment, or the local stack): the
 * discovery documents an assistant starts from, the OpenAPI document, that protected routes
 * refuse a caller without a credential the way clients expect (401 with WWW-Authenticate), and,
 * given an agent key, one real read. Each check ends in one line of text; none throws.
 */

export interface SmokeTarget {
  /** The assistant API's URL (the OAuth issuer), without a trailing slash. */
  url: string;
  /** The console API's URL, without a trailing slash (the same as `url` on a local stack). */
  consoleUrl: string;
  /** An agent key allowed to read the business, for the one authenticated read. */
  agent?: { key: string; businessId: string } | undefined;
}

/** One check: what it checked, and why it failed (absent when it passed). */
export interface SmokeResult {
  what: string;
  problem?: string;
}

const ANSWER_TIMEOUT_MS = 10_000;

/** A check's failure, already worded for its line. */
class CheckFailed extends Error {}

/** Text on one line, at most `max` characters (bodies and error messages quoted in a line). */
function oneLine(text: string, max = 120): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

async function call(url: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: 'manual', signal: AbortSignal.timeout(ANSWER_TIMEOUT_MS) });
  } catch (error) {
    const { name, cause, message } = error as Error & { cause?: { code?: string; message?: string } };
    if (name === 'TimeoutError')
      throw new CheckFailed(`no answer from ${url} within ${ANSWER_TIMEOUT_MS / 1000} s`);
    throw new CheckFailed(`cannot reach ${url}: ${oneLine(cause?.message ?? cause?.code ?? message)}`);
  }
}

/**
 * The answer's status and what it said, for a failure line: the code and message of the service's
 * error bodies (ErrorResponse, OAuth errors), else the start of the body.
 */
async function statusAndBody(response: Response): Promise<string> {
  const text = await response.text().catch(() => '');
  try {
    const { error, error_description } = JSON.parse(text) as {
      error?: string | { code?: string; message?: string };
      error_description?: string;
    };
    if (typeof error === 'object' && error?.code)
      return `${response.status} ${error.code}: ${oneLine(error.message ?? '')}`;
    if (typeof error === 'string') return `${response.status} ${error}: ${oneLine(error_description ?? '')}`;
  } catch {
    // not JSON: quoted as it is
  }
  const body = oneLine(text);
  return body ? `${response.status} ${body}` : String(response.status);
}

/** The JSON body of an answer that must have this status. */
async function jsonAnswer(response: Response, status: number): Promise<Record<string, unknown>> {
  if (response.status !== status)
    throw new CheckFailed(`answered ${await statusAndBody(response)}, expected ${status}`);
  const text = await response.text();
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === 'object' && body !== null && !Array.isArray(body))
      return body as Record<string, unknown>;
  } catch {
    // said below
  }
  throw new CheckFailed(
    `answered ${status} with a body that is not a JSON object: ${oneLine(text, 60) || '(empty)'}`,
  );
}

/** A refusal clients can act on: 401 with a Bearer challenge (and what else `challenge` needs). */
async function refusesWithChallenge(response: Response, needs?: RegExp): Promise<void> {
  if (response.status !== 401)
    throw new CheckFailed(`answered ${await statusAndBody(response)}, expected 401`);
  const challenge = response.headers.get('www-authenticate');
  if (!challenge) throw new CheckFailed('answered 401 without a WWW-Authenticate header');
  if (!/^Bearer\b/i.test(challenge) || (needs && !needs.test(challenge)))
    throw new CheckFailed(`answered 401 with an unexpected WWW-Authenticate: ${oneLine(challenge, 80)}`);
}

const quoted = (value: unknown) => (value === undefined ? 'missing' : JSON.stringify(value));

interface Check {
  what: string;
  run(): Promise<void>;
}

function checksOf(target: SmokeTarget): Check[] {
  const { url, consoleUrl, agent } = target;
  const openApiAt = (base: string, what: string): Check => ({
    what,
    async run() {
      const document = await jsonAnswer(await call(`${base}/openapi.json`), 200);
      if (typeof document.openapi !== 'string' || !document.openapi.startsWith('3.1.'))
        throw new CheckFailed(`openapi is ${quoted(document.openapi)}, expected 3.1.x`);
      const paths = document.paths;
      if (typeof paths !== 'object' || paths === null || Object.keys(paths).length === 0)
        throw new CheckFailed('the document has no paths');
    },
  });
  const checks: Check[] = [
    {
      what: 'authorization server metadata names the URL as its issuer',
      async run() {
        const metadata = await jsonAnswer(await call(`${url}/.well-known/oauth-authorization-server`), 200);
        if (metadata.issuer !== url)
          throw new CheckFailed(`issuer is ${quoted(metadata.issuer)}, expected "${url}"`);
      },
    },
    {
      what: 'protected resource metadata of /mcp',
      async run() {
        const metadata = await jsonAnswer(await call(`${url}/.well-known/oauth-protected-resource/mcp`), 200);
        if (metadata.resource !== `${url}/mcp`)
          throw new CheckFailed(`resource is ${quoted(metadata.resource)}, expected "${url}/mcp"`);
        const servers = metadata.authorization_servers;
        if (!Array.isArray(servers) || !servers.includes(url))
          throw new CheckFailed(`authorization_servers is ${quoted(servers)}, expected it to list "${url}"`);
      },
    },
    ...(consoleUrl === url
      ? [openApiAt(url, '/openapi.json is OpenAPI 3.1 with paths')]
      : [
          openApiAt(url, '/openapi.json of the assistant API is OpenAPI 3.1 with paths'),
          openApiAt(consoleUrl, '/openapi.json of the console API is OpenAPI 3.1 with paths'),
        ]),
    {
      what: '/mcp without a token answers 401 with WWW-Authenticate',
      async run() {
        const response = await call(`${url}/mcp`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
          body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: {} }),
        });
        // An assistant finds the authorization server through resource_metadata.
        await refusesWithChallenge(response, /resource_metadata="/);
      },
    },
    {
      what: 'a console route (GET /api/v1/admin/users) without a token answers 401 with WWW-Authenticate',
      async run() {
        await refusesWithChallenge(await call(`${consoleUrl}/api/v1/admin/users`));
      },
    },
  ];
  if (agent) {
    checks.push({
      what: `agent read (GET /api/v1/agent/businesses/${agent.businessId}/faqs) answers 200`,
      async run() {
        const response = await call(
          `${consoleUrl}/api/v1/agent/businesses/${agent.businessId}/faqs?limit=1`,
          {
            headers: { authorization: `Bearer ${agent.key}` },
          },
        );
        const body = await jsonAnswer(response, 200);
        if (body.success !== true || !Array.isArray(body.data))
          throw new CheckFailed('answered 200 without a SuccessResponse listing FAQs');
      },
    });
  }
  return checks;
}

/** Run every check in turn; a failure never stops the ones after it. */
export async function runSmokeChecks(target: SmokeTarget): Promise<SmokeResult[]> {
  const results: SmokeResult[] = [];
  for (const check of checksOf(target)) {
    try {
      await check.run();
      results.push({ what: check.what });
    } catch (error) {
      const problem =
        error instanceof CheckFailed ? error.message : oneLine(String((error as Error)?.message ?? error));
      results.push({ what: check.what, problem });
    }
  }
  return results;
}

/** `ok   <what>` or `FAIL <what>: <why>`. */
export const resultLine = ({ what, problem }: SmokeResult): string =>
  problem === undefined ? `ok   ${what}` : `FAIL ${what}: ${problem}`;
