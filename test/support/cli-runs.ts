import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { expect, inject } from 'vitest';
import { ROOT_DIR } from '../../infra/local/paths.ts';

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

/**
 * Run an operator CLI (`infra/local/cli/<script>`) against the integration run's stack, with its
 * security events (warn lines) on stderr: the tests silence logs below errors, an operator's run
 * does not.
 */
export function runOperatorCli(script: string, args: string[], env: Record<string, string> = {}) {
  return run(process.execPath, ['--import', 'tsx', `infra/local/cli/${script}`, ...args], {
    cwd: ROOT_DIR,
    env: {
      ...process.env,
      TABLE_NAME: '',
      LOCAL_STATE_DIR: inject('harness').stateDir,
      POWERTOOLS_LOG_LEVEL: 'WARN',
      ...env,
    },
    timeout: 60_000,
  });
}

/** The security events a CLI run logged (JSON lines on stderr). */
export const securityEvents = (stderr: string) =>
  stderr
    .split('\n')
    .filter((line) => line.includes('"security_event"'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
