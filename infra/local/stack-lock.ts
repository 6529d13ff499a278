/**
 * One stack per state folder: `npm start` holds `.local/stack.lock` (its pid and URL) while it runs,
 * so a second `npm start` or an `npm run reset` on the same folder can refuse instead of sharing or
 * deleting the data under it. A lock whose process is gone (a crash, a kill -9) is stale and ignored.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const LOCK_FILE = 'stack.lock';

export interface StackLock {
  pid: number;
  /** Null while the stack is still starting. */
  url: string | null;
}

export interface HeldLock {
  setUrl(url: string): void;
  release(): void;
}

/** The live stack holding this folder, if any (a stale lock is removed). */
export function runningStack(stateDir: string): StackLock | undefined {
  const file = join(stateDir, LOCK_FILE);
  let lock: StackLock;
  try {
    lock = JSON.parse(readFileSync(file, 'utf8')) as StackLock;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    lock = { pid: 0, url: null }; // unreadable: a stack that died while writing it
  }
  if (lock.pid > 0 && isAlive(lock.pid)) return lock;
  rmSync(file, { force: true });
  return undefined;
}

/** One line saying which stack holds the folder. */
export function describeRunningStack(stateDir: string, lock: StackLock): string {
  const where = lock.url ? `at ${lock.url}` : 'and is still starting';
  return `A stack already runs on ${stateDir} ${where} (pid ${lock.pid}); stop it with Ctrl-C first`;
}

/**
 * Take the folder's lock, or return the live stack that holds it. Creating the file with `wx` makes
 * two starts racing for it take turns: only one creates it.
 */
export function acquireStackLock(stateDir: string): HeldLock | StackLock {
  const file = join(stateDir, LOCK_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    const held = runningStack(stateDir);
    if (held) return held;
    try {
      writeFileSync(file, JSON.stringify({ pid: process.pid, url: null }), { flag: 'wx', mode: 0o600 });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'EEXIST') continue;
      throw error;
    }
    return {
      setUrl: (url) => writeFileSync(file, JSON.stringify({ pid: process.pid, url }), { mode: 0o600 }),
      release: () => {
        if (runningStack(stateDir)?.pid === process.pid) rmSync(file, { force: true });
      },
    };
  }
  return runningStack(stateDir) ?? { pid: 0, url: null };
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
