/** `npm run event -- <operationId>`: print a sample API Gateway (payload 2.0) event for one operation. */
import { findRoute, routeTable } from '#lib/routes/route-table.ts';
import { sampleEvent } from '../sample-event.ts';
import { fail, localCredentials } from './local-stack.ts';

const operationId = process.argv[2];
const route = operationId ? findRoute(operationId) : undefined;
if (!route) fail(`name an operation: ${routeTable.map((r) => r.operationId).join(', ')}`);
console.log(JSON.stringify(sampleEvent(route, localCredentials()), null, 2));
