/**
 * `npm run build:pages [-- --out DIR] [-- --base-path /console/]`: the console pages for
 * deployment (default dist/console-pages/, base path '/'), with each file's size.
 */
import { join, relative } from 'node:path';
import { parseArgs } from 'node:util';
import { buildConsolePages } from './build.ts';

const root = join(import.meta.dirname, '..');
const { values } = parseArgs({
  options: {
    out: { type: 'string', default: join(root, 'dist', 'console-pages') },
    'base-path': { type: 'string', default: '/' },
  },
});
try {
  const files = await buildConsolePages(values.out, { basePath: values['base-path'] });
  const total = files.reduce((sum, file) => sum + file.bytes, 0);
  console.log(`Console pages built in ${relative(process.cwd(), values.out) || '.'}:`);
  for (const file of files) console.log(`  ${file.name.padEnd(12)} ${file.bytes.toLocaleString('en')} bytes`);
  console.log(`  total        ${total.toLocaleString('en')} bytes (config.json is written per deployment)`);
} catch (error) {
  console.error(`error: ${(error as Error).message}`);
  process.exit(1);
}
