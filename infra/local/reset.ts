/** `npm run reset`: delete the local stack's data, keys and credentials (never under a running stack). */
import { rmSync } from 'node:fs';
import { STATE_DIR } from './paths.ts';
import { describeRunningStack, runningStack } from './stack-lock.ts';

const running = runningStack(STATE_DIR);
if (running) {
  console.error(`error: ${describeRunningStack(STATE_DIR, running)}, then run npm run reset`);
  process.exit(1);
}
rmSync(STATE_DIR, { recursive: true, force: true });
console.log(`Deleted ${STATE_DIR}; the next npm start seeds fresh demo data.`);
