/**
 * `npm run smoke -- --url <AssistantApiUrl> [--console-url <ConsoleApiUrl>] [--agent-key agk_… --business <id>]`:
 * after a deploy, checks the live service (infra/smoke-checks.ts) and prints one line per check,
 * `ok   …` or `FAIL …: why`. Exits 0 when every check passed, 1 otherwise. The console URL
 * defaults to --url, which is what a local stack is (`npm run smoke -- --url http://127.0.0.1:3000`).
 */
import * as z from '#lib/validation/zod.ts';
import { parseCommandLine, usageError } from './command-line.ts';
import { speakOneLine } from './local/cli/cli-failure.ts';
import { resultLine, runSmokeChecks } from './smoke-checks.ts';

const COMMAND = {
  name: 'npm run smoke',
  usage: `
Usage: npm run smoke -- --url URL [--console-url URL] [--agent-key agk_… --business ID]

Checks a running service (after a deploy, or a local stack) and prints one line per check, ok or
FAIL with why; exits 0 when every check passed, 1 otherwise. The URLs are the deploy's stack
outputs (npm run deploy prints them at its end; the AWS console lists them under Outputs).

  --url URL            the assistant API's base URL (the OAuth issuer; MCP is at URL/mcp): the
                       deploy's output AssistantApiUrl, e.g.
                       https://abc123.execute-api.eu-west-1.amazonaws.com or the assistant
                       domain; locally the stack's URL, http://127.0.0.1:3000
  --console-url URL    the console API's base URL (/api/v1/…): the deploy's output
                       ConsoleApiUrl (default: --url, which is what a local stack is)
  --agent-key agk_…    an agent key (npm run agent-key -- create) to check one read with
  --business ID        the business (a UUID) that key may read
  -h, --help           this text

Example:
  npm run smoke -- --url http://127.0.0.1:3000
`,
};

speakOneLine();
const { values } = parseCommandLine(COMMAND, {
  options: {
    url: { type: 'string' },
    'console-url': { type: 'string' },
    'agent-key': { type: 'string' },
    business: { type: 'string' },
  },
});

const BaseUrl = z.url({ protocol: /^https?$/ });
const AgentKey = z.string().check(z.regex(/^agk_[A-Za-z0-9_-]+$/));

/** An http(s) URL without query or fragment, with no trailing slash (the issuer has none). */
function baseUrl(flag: string, value: string | undefined): string {
  if (value === undefined) usageError(COMMAND, `pass --${flag} <URL>`);
  const parsed = z.safeParse(BaseUrl, value);
  const url = parsed.success ? new URL(parsed.data) : undefined;
  if (!url || url.search || url.hash)
    usageError(
      COMMAND,
      `--${flag} must be an http(s) URL such as https://abc123.execute-api.eu-west-1.amazonaws.com`,
    );
  return `${url.origin}${url.pathname}`.replace(/\/+$/, '');
}

if (values.url === undefined)
  usageError(COMMAND, 'pass --url <AssistantApiUrl> (and --console-url <ConsoleApiUrl> when it differs)');
const url = baseUrl('url', values.url);
const consoleUrl = values['console-url'] === undefined ? url : baseUrl('console-url', values['console-url']);

const key = values['agent-key'];
const businessId = values.business;
if ((key === undefined) !== (businessId === undefined))
  usageError(
    COMMAND,
    '--agent-key and --business go together: the key is checked with one read of that business',
  );
if (key !== undefined && !z.safeParse(AgentKey, key).success)
  usageError(COMMAND, '--agent-key must be an agent key, agk_…');
if (businessId !== undefined && !z.safeParse(z.uuid(), businessId).success)
  usageError(COMMAND, '--business must be a business id (a UUID)');

const results = await runSmokeChecks({
  url,
  consoleUrl,
  agent: key && businessId ? { key, businessId } : undefined,
});
for (const result of results) console.log(resultLine(result));
if (!key) console.log('skip agent read: pass --agent-key agk_… --business <id> to check one');
process.exitCode = results.every((result) => result.problem === undefined) ? 0 : 1;
