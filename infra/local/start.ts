/**
 * `npm start`: the whole service on 127.0.0.1 with demo data.
 *
 *   --port N       HTTP port (default $PORT or 3000; 0 = any free port); `npm start --port N` works too
 *   --ephemeral    in-memory data in a temporary folder, deleted on exit (tests, bench)
 *   --ready-json   print one line `HARNESS_READY {json}` instead of the banner (for programs)
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { localConsoleUrl } from './dev-console.ts';
import { REVIEW_HOST_PATH } from './dev-review-host.ts';
import { HarnessStartError } from './emulators.ts';
import { type RunningHarness, startHarness } from './harness.ts';
import { describeIamReport } from './iam/enforcer.ts';
import { ROOT_DIR, STATE_DIR } from './paths.ts';

const startOptions = {
  // `npm start --port 3400` (without `--`) reaches us as npm's config variable npm_config_port.
  port: { type: 'string', default: process.env.npm_config_port ?? process.env.PORT ?? '3000' },
  ephemeral: { type: 'boolean', default: false },
  'ready-json': { type: 'boolean', default: false },
} as const;
let parsed: ReturnType<typeof parseArgs<{ options: typeof startOptions }>>;
try {
  parsed = parseArgs({ options: startOptions });
} catch (error) {
  // A bad flag is one line, not a stack trace.
  console.error(
    `error: ${(error as Error).message.split('. ')[0]} (flags: --port N, --ephemeral, --ready-json)`,
  );
  process.exit(1);
}
const { values } = parsed;

const port = Number(values.port);
if (!Number.isInteger(port) || port < 0 || port > 65535) {
  console.error(`error: --port must be a port number, got '${values.port}'`);
  process.exit(1);
}
const stateDir = values.ephemeral ? mkdtempSync(join(tmpdir(), 'bps-harness-')) : STATE_DIR;

let harness: RunningHarness | undefined;
let stopping = false;
async function shutdown(code: number) {
  if (stopping) return;
  stopping = true;
  const report = harness?.iamReport();
  await harness?.stop();
  if (report && values['ready-json']) console.log(`HARNESS_IAM ${JSON.stringify(report)}`);
  else if (report) console.log(describeIamReport(report));
  process.exit(code);
}
process.on('SIGINT', () => void shutdown(0));
process.on('SIGTERM', () => void shutdown(0));
// A program that started us with --ready-json stops us by closing our stdin, even if it crashed.
if (values['ready-json']) {
  process.stdin.on('end', () => void shutdown(0));
  process.stdin.resume();
}

try {
  harness = await startHarness({
    port,
    stateDir,
    ephemeral: values.ephemeral,
    logRequests: !values['ready-json'],
    rootDir: ROOT_DIR,
  });
} catch (error) {
  console.error(`error: ${error instanceof HarnessStartError ? error.message : (error as Error).stack}`);
  await shutdown(1);
}

if (harness && values['ready-json']) {
  const { stop: _stop, ...info } = harness;
  console.log(`HARNESS_READY ${JSON.stringify(info)}`);
} else if (harness) {
  const { baseUrl, credentials } = harness;
  const business = credentials.businesses[0];
  const credentialsFile = join(stateDir, 'credentials.json');
  const schedule = `${baseUrl}/api/v1/businesses/${business?.id}/blog_posts/auto_schedule`;
  console.log(`
Business Platform Service is running at ${baseUrl}
  API docs        ${baseUrl}/docs   (OpenAPI: ${baseUrl}/openapi.json)
  Console pages   ${localConsoleUrl(baseUrl)}/   (sign-in, connected assistants; where invite and consent links lead)
  Review view     ${baseUrl}${REVIEW_HOST_PATH}   (the MCP App view of a changeset, hosted here without an assistant)
  Sent e-mails    ${credentials.ses_web_url}
  Credentials     ${credentialsFile}
  Data            ${stateDir}   (npm run reset wipes it)
  IAM             every AWS call is checked against its function's role in the synthesized templates
                  (${harness.iam.templatesCached ? 'from the synth cache' : `synthesized in ${(harness.iam.templatesMs / 1000).toFixed(1)} s`}; refusals print as [iam] lines)

Try it (bash):
  TOKEN=$(node -p "require('${credentialsFile}').businesses[0].tokens.owner")
  curl -s -X PUT ${schedule} -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d '{"frequency_type":"daily"}'
  curl -s ${schedule} -H "authorization: Bearer $TOKEN"
  curl -s -X DELETE -o /dev/null -w '%{http_code}\\n' ${schedule} -H "authorization: Bearer $TOKEN"

Mint a token for anyone: npm run token -- --email someone@example.com
Press Ctrl-C to stop.`);
}
