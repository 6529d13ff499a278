/** `npm run reset`: delete the local stack's data, keys and credentials (never under a running stack). */
import { existsSync, rmSync } from 'node:fs';
import { relative } from 'node:path';
import { confirm, parseCommandLine } from '../command-line.ts';
import { ROOT_DIR, STATE_DIR } from './paths.ts';
import { describeRunningStack, runningStack } from './stack-lock.ts';

const COMMAND = {
  name: 'npm run reset',
  usage: `
Usage: npm run reset -- [--yes]

Deletes the local stack's folder (.local/: its data, keys, credentials and sent e-mails); the next
npm start seeds fresh demo data. Refused while a stack runs on the folder. Asks first on a
terminal; elsewhere (a script, CI) it needs --yes.

  -y, --yes     delete without asking
  -h, --help    this text

Example:
  npm run reset -- --yes
`,
};

const { values } = parseCommandLine(COMMAND, { options: { yes: { type: 'boolean', short: 'y' } } });
const running = runningStack(STATE_DIR);
if (running) {
  console.error(`error: ${describeRunningStack(STATE_DIR, running)}, then run npm run reset`);
  process.exit(1);
}
if (!existsSync(STATE_DIR)) {
  console.log(`Nothing to delete: ${STATE_DIR} does not exist.`);
  process.exit(0);
}
const shown = relative(ROOT_DIR, STATE_DIR).startsWith('..')
  ? STATE_DIR
  : `${relative(ROOT_DIR, STATE_DIR)}/`;
await confirm(COMMAND, `delete ${shown} (the local data, keys and credentials)`, values.yes);
rmSync(STATE_DIR, { recursive: true, force: true });
console.log(`Deleted ${STATE_DIR}; the next npm start seeds fresh demo data.`);
