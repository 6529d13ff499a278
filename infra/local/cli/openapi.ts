/**
 * `npm run openapi [-- --out FILE | --json] [--server URL]`: the OpenAPI 3.1 document built from
 * the route table, written to a file or printed whole; without either, a summary of its operations.
 */
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { routeTable } from '#lib/routes/route-table.ts';
import { parseCommandLine, usageError } from '../../command-line.ts';
import { buildOpenApiDocument } from '../../openapi.ts';
import { speakOneLine } from './cli-failure.ts';

const COMMAND = {
  name: 'npm run openapi',
  usage: `
Usage: npm run openapi -- [--out FILE | --json] [--server URL]

Builds the OpenAPI 3.1 document from the route table (the one a stack serves at /openapi.json).
Without --out or --json it prints a summary: one line per operation, by area.

  --out FILE     write the document (JSON) to FILE
  --json         print the document (JSON) on stdout
  --server URL   the document's server URL (default /)
  -h, --help     this text

Example:
  npm run openapi -- --out openapi.json --server https://api.example.com
`,
};

speakOneLine();
const { values } = parseCommandLine(COMMAND, {
  options: {
    out: { type: 'string' },
    json: { type: 'boolean', default: false },
    server: { type: 'string', default: '/' },
  },
});
if (values.out !== undefined && values.json) usageError(COMMAND, '--out and --json: choose one');
if (values.out === '') usageError(COMMAND, '--out needs a file name');

const document = buildOpenApiDocument(routeTable, values.server);
const json = `${JSON.stringify(document, null, 2)}\n`;
if (values.json) {
  process.stdout.write(json);
} else if (values.out !== undefined) {
  writeFileSync(values.out, json);
  console.log(`wrote ${relative(process.cwd(), values.out) || values.out} (${routeTable.length} operations)`);
} else {
  console.log(`${document.info.title} ${document.info.version}: ${routeTable.length} operations`);
  const areas = [...new Set(routeTable.map((route) => route.area))];
  for (const area of areas) {
    console.log(`\n${area}`);
    for (const route of routeTable.filter((candidate) => candidate.area === area))
      console.log(`  ${route.method.padEnd(6)} ${route.path}  ${route.operationId}`);
  }
  console.log('\nThe whole document: npm run openapi -- --json (or --out FILE)');
}
