/**
 * `npm run invoke -- <operationId> [--event file.json]`: run one handler once with an API Gateway
 * event (like `sam local invoke`) against the running local stack, and print its result.
 * Without --event it uses `npm run event`'s sample.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import { findRoute, routeTable } from '#lib/routes/route-table.ts';
import { invokeRoute } from '../lambda-runner.ts';
import { ROOT_DIR } from '../paths.ts';
import { sampleEvent } from '../sample-event.ts';
import { fail, localCredentials, useLocalStack } from './local-stack.ts';

const { values, positionals } = parseArgs({ options: { event: { type: 'string' } }, allowPositionals: true });
const route = positionals[0] ? findRoute(positionals[0]) : undefined;
if (!route) fail(`name an operation: ${routeTable.map((r) => r.operationId).join(', ')}`);
useLocalStack();

const event: APIGatewayProxyEventV2 = values.event
  ? JSON.parse(readFileSync(values.event, 'utf8'))
  : sampleEvent(route, localCredentials());
const response = await invokeRoute(ROOT_DIR, route, event);
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
