import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, whatever the current directory. */
export const ROOT_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** Where `npm start` keeps its state between runs; `npm run reset` deletes it. */
export const STATE_DIR = process.env.LOCAL_STATE_DIR ?? join(ROOT_DIR, '.local');
