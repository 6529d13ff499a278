/**
 * `npm start`: the whole service on 127.0.0.1 with demo data.
 *
 * USAGE below; the options are parsed before anything starts (infra/command-line.ts).
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCommandLine, usageError } from '../command-line.ts';
import { localConsoleUrl } from './dev-console.ts';
import { REVIEW_HOST_PATH } from './dev-review-host.ts';
import { HarnessStartError } from './emulators.ts';
import { WEBHOOKS_PAGE_PATH } from './events/webhooks-page.ts';
import { type RunningHarness, startHarness } from './harness.ts';
import { describeIamReport } from './iam/enforcer.ts';
import { ROOT_DIR, STATE_DIR } from './paths.ts';

const COMMAND = {
  name: 'npm start',
  usage: `
Usage: npm start -- [--port N] [--ephemeral] [--ready-json]

Runs the whole service on 127.0.0.1 with demo data (DynamoDB Local, S3, SES and the other
emulators), keeping its data in .local/ between runs (npm run reset wipes it). Ctrl-C stops it.

  --port N       HTTP port (default $PORT, else 3000; 0 = any free port)
  --ephemeral    in-memory data in a temporary folder, deleted on exit (tests, bench)
  --ready-json   print one line HARNESS_READY {json} instead of the banner (for programs)
  -h, --help     this text

Example:
  npm start -- --port 3400        (or PORT=3400 npm start)
`,
};

const { values } = parseCommandLine(COMMAND, {
  options: {
    // `npm start --port 3400` (without `--`) reaches us, with npm 10, as npm_config_port.
    port: { type: 'string', default: process.env.npm_config_port ?? process.env.PORT ?? '3000' },
    ephemeral: { type: 'boolean', default: false },
    'ready-json': { type: 'boolean', default: false },
  },
});

const port = Number(values.port);
if (!/^\d+$/.test(values.port) || port > 65535)
  usageError(COMMAND, `--port must be a port number (0 to 65535), got '${values.port}'`);
const visibilityTimeout = process.env.LOCAL_QUEUE_VISIBILITY_TIMEOUT_SECONDS;
if (visibilityTimeout !== undefined && !/^\d+(\.\d+)?$/.test(visibilityTimeout))
  usageError(
    COMMAND,
    `LOCAL_QUEUE_VISIBILITY_TIMEOUT_SECONDS must be a number of seconds, got '${visibilityTimeout}'`,
  );
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
    // Local queues' messages come back after this many seconds instead of their template's (tests).
    ...(visibilityTimeout === undefined ? {} : { queueVisibilityTimeoutSeconds: Number(visibilityTimeout) }),
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
  Webhooks        ${baseUrl}${WEBHOOKS_PAGE_PATH}   (delivery attempts; the events on the bus: ${baseUrl}/console/dev/events)
  Credentials     ${credentialsFile}
  Data            ${stateDir}   (npm run reset wipes it)
  IAM             every AWS call is checked against its function's role in the synthesized templates
                  (${harness.iam.templatesCached ? 'from the synth cache' : `synthesized in ${(harness.iam.templatesMs / 1000).toFixed(1)} s`}; refusals print as [iam] lines)

Try it (bash):
  TOKEN=$(node -p "require('${credentialsFile}').businesses[0].tokens.owner")
  KEY=$(node -p "require('${credentialsFile}').agent_key")
  curl -s -X PUT ${schedule} -H "authorization: Bearer $TOKEN" -H 'content-type: application/json' -d '{"frequency_type":"daily"}'
  curl -s ${schedule} -H "authorization: Bearer $TOKEN"
  curl -s -X DELETE -o /dev/null -w '%{http_code}\\n' ${schedule} -H "authorization: Bearer $TOKEN"
  curl -s ${baseUrl}/api/v1/agent/businesses/${business?.id}/faqs -H "authorization: Bearer $KEY"   # the agent API

Receive webhooks (any server on http://127.0.0.1; the answer shows its signing secret once):
  curl -s -X POST ${baseUrl}/api/v1/agent/webhooks -H "authorization: Bearer $KEY" -H 'content-type: application/json' -d '{"url":"http://127.0.0.1:4000/webhooks"}'

Mint a token for anyone: npm run token -- --email someone@example.com
Press Ctrl-C to stop.`);
}
