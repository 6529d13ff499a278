import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { RUNTIME_FILE } from '../harness.ts';
import type { LocalCredentials } from '../local-credentials.ts';
import { STATE_DIR } from '../paths.ts';
import { fail } from './cli-failure.ts';

/**
 * Point this process at the stack `npm start` is running (its emulators' ports change every
 * start), unless TABLE_NAME is already set, e.g. to talk to a deployed table in AWS.
 */
export function useLocalStack(): void {
  if (process.env.TABLE_NAME) return;
  const file = join(STATE_DIR, RUNTIME_FILE);
  if (!existsSync(file))
    fail('The local stack is not running: start it with `npm start` (or set TABLE_NAME for AWS).');
  const { env } = JSON.parse(readFileSync(file, 'utf8')) as { env: Record<string, string> };
  Object.assign(process.env, env);
}

/** The credentials the running (or last) local stack wrote, if any. */
export function localCredentials(): LocalCredentials | undefined {
  const file = join(STATE_DIR, 'credentials.json');
  return existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as LocalCredentials) : undefined;
}
