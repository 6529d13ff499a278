/** `npm run reset`: delete the local stack's data, keys and credentials. */
import { rmSync } from 'node:fs';
import { STATE_DIR } from './paths.ts';

rmSync(STATE_DIR, { recursive: true, force: true });
console.log(`Deleted ${STATE_DIR}; the next npm start seeds fresh demo data.`);
