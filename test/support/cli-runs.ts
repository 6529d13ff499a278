import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect } from 'vitest';

/** Run a command, resolving with its output; rejects with its exit code and output on failure. */
export const run = promisify(execFile);

/** The CLI failed with exit code 1 and exactly one line on stderr, `error: …`, no stack trace. */
export async function failsInOneLine(running: Promise<unknown>): Promise<string> {
  const failure = await running.then(
    () => {
      throw new Error('the command succeeded');
    },
    (error: { code: number; stderr: string }) => error,
  );
  expect(failure.code).toBe(1);
  const lines = failure.stderr.trim().split('\n');
  expect(lines, failure.stderr).toHaveLength(1);
  expect(lines[0]).toMatch(/^error: /);
  return lines[0] ?? '';
}
