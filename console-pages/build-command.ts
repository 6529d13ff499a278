/**
 * `npm run build:pages [-- --out DIR] [--base-path /console/]`: the console pages for deployment
 * (default dist/console-pages/, base path '/'), with each file's size.
 */
import { join, relative } from 'node:path';
import { parseCommandLine, usageError } from '../infra/command-line.ts';
import { buildConsolePages } from './build.ts';

const root = join(import.meta.dirname, '..');
const COMMAND = {
  name: 'npm run build:pages',
  usage: `
Usage: npm run build:pages -- [--out DIR] [--base-path PATH]

Builds the console pages for deployment into DIR (emptied first) and prints each file's size.
The deploy builds them itself; this is to look at them or host them elsewhere.

  --out DIR          where the pages go (default dist/console-pages)
  --base-path PATH   the path they are served under, starting and ending with / (default /)
  -h, --help         this text

Example:
  npm run build:pages -- --out /tmp/pages --base-path /console/
`,
};
const { values } = parseCommandLine(COMMAND, {
  options: {
    out: { type: 'string', default: join(root, 'dist', 'console-pages') },
    'base-path': { type: 'string', default: '/' },
  },
});
if (values.out === '') usageError(COMMAND, '--out needs a folder');
if (!/^\/([\w.-]+\/)*$/.test(values['base-path']))
  usageError(COMMAND, `--base-path must start and end with /, got '${values['base-path']}'`);
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
