/**
 * `npm run invoke -- <operationId> [--event file.json]`: run one handler once with an API Gateway
 * event (like `sam local invoke`) against the running local stack, and print its result.
 * Without --event it uses `npm run event`'s sample.
 */
import { existsSync, readFileSync } from 'node:fs';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { parseCommandLine } from '../../command-line.ts';
import { invokeRoute, stopFunctions } from '../lambda-runner.ts';
import { ROOT_DIR } from '../paths.ts';
import { sampleEvent } from '../sample-event.ts';
import { fail, speakOneLine } from './cli-failure.ts';
import { operationNamed } from './operation.ts';
import { localCredentials, useLocalStack } from './running-stack.ts';

const COMMAND = {
  name: 'npm run invoke',
  usage: `
Usage: npm run invoke -- OPERATION_ID [--event FILE]

Runs one handler once, as Lambda would, against the running local stack (npm start) and prints
its status, headers and body. Without --event it uses npm run event's sample for the operation.

  --event FILE   an API Gateway payload 2.0 event (JSON) to invoke it with
  -h, --help     this text

Example:
  npm run invoke -- getBlogAutoSchedule
`,
};

speakOneLine();
const { values, positionals } = parseCommandLine(COMMAND, {
  options: { event: { type: 'string' } },
  allowPositionals: true,
});
const route = operationNamed(COMMAND, positionals, 'invoke');
if (values.event !== undefined && !existsSync(values.event)) fail(`--event: ${values.event} does not exist`);
useLocalStack();

const event: APIGatewayProxyEventV2 = values.event
  ? parseEvent(values.event)
  : sampleEvent(route, localCredentials());
const { response } = await invokeRoute(ROOT_DIR, route, event);
await stopFunctions();
const body = response.body.toString('utf8');
console.log(
  JSON.stringify(
    { statusCode: response.statusCode, headers: response.headers, body: tryJson(body) },
    null,
    2,
  ),
);

function tryJson(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text);
  } catch {
    return text;
  }
}

function parseEvent(file: string): APIGatewayProxyEventV2 {
  try {
    return JSON.parse(readFileSync(file, 'utf8'));
  } catch {
    fail(`--event: ${file} is not a JSON event (npm run event -- ${route.operationId} prints one)`);
  }
}
