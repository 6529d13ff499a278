import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LocalCredentials } from '../harness.ts';
import { RUNTIME_FILE } from '../harness.ts';
import { STATE_DIR } from '../paths.ts';

/**
 * Every CLI speaks one line when it fails: whatever is thrown (a bad flag, a missing file, an
 * unknown id, a refused value) is printed as `error: <message>`, never as a stack trace.
 * `BPS_DEBUG=1` prints the stack as well.
 */
export function speakOneLine(): void {
  const report = (error: unknown) => fail(oneLine(error));
  process.on('uncaughtException', report);
  process.on('unhandledRejection', report);
}

function oneLine(error: unknown): string {
  if (process.env.BPS_DEBUG) console.error(error);
  const { code, path, message } = error as NodeJS.ErrnoException & { message?: string };
  if (code === 'ENOENT' && path) return `${path} does not exist`;
  if (code?.startsWith('ERR_PARSE_ARGS_'))
    return `${String(message).split('. ')[0]} (see the command's usage in the README)`;
  return String(message ?? error).split('\n')[0] ?? 'failed';
}

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

/** The candidate closest to what was typed (case-insensitive edit distance), for "did you mean". */
export function closestMatch(typed: string, candidates: string[]): string | undefined {
  let best: { candidate: string; distance: number } | undefined;
  for (const candidate of candidates) {
    const distance = editDistance(typed.toLowerCase(), candidate.toLowerCase());
    if (!best || distance < best.distance) best = { candidate, distance };
  }
  return best?.candidate;
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, index) => index);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      row[j] = Math.min((previous[j] ?? 0) + 1, (row[j - 1] ?? 0) + 1, (previous[j - 1] ?? 0) + cost);
    }
    previous = row;
  }
  return previous[b.length] ?? 0;
}

export function fail(message: string): never {
  console.error(`error: ${message}`);
  process.exit(1);
}
