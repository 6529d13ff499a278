/** `npm run openapi [-- --server URL]`: print the OpenAPI 3.1 document built from the route table. */
import { parseArgs } from 'node:util';
import { routeTable } from '#lib/routes/route-table.ts';
import { buildOpenApiDocument } from '../../openapi.ts';
import { speakOneLine } from './cli-failure.ts';

speakOneLine();
const { values } = parseArgs({ options: { server: { type: 'string', default: '/' } } });
console.log(JSON.stringify(buildOpenApiDocument(routeTable, values.server), null, 2));
