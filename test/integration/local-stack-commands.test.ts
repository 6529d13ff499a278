import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { describe, expect, inject, it, vi } from 'vitest';
import { ROOT_DIR } from '../../infra/local/paths.ts';
import { run } from '../support/cli-runs.ts';

/** `npm start`, `npm run reset` and stopping a stack: what a newcomer meets first, refusals in one line. */
describe('npm start', () => {
  const start = (args: string[], env: Record<string, string> = {}) =>
    run(process.execPath, ['--import', 'tsx', 'infra/local/start.ts', '--ephemeral', ...args], {
      cwd: ROOT_DIR,
      env: { ...process.env, ...env },
      timeout: 60_000,
    });

  it('stops with one clear line when the port is taken', async () => {
    const busyPort = Number(new URL(inject('harness').baseUrl).port);

    const failure = await start(['--port', String(busyPort)]).catch((error) => error);
    expect(failure.code).toBe(1);
    expect(failure.stderr.trim()).toBe(
      `error: Port ${busyPort} is already in use; pass --port or set PORT to another port`,
    );
  });

  it('takes --port from npm (npm start --port N, without --, arrives as npm_config_port), and a bad flag in one line', async () => {
    const busyPort = Number(new URL(inject('harness').baseUrl).port);

    const failure = await run(process.execPath, ['--import', 'tsx', 'infra/local/start.ts', '--ephemeral'], {
      cwd: ROOT_DIR,
      env: { ...process.env, npm_config_port: String(busyPort) },
      timeout: 60_000,
    }).catch((error) => error);
    expect(failure.stderr.trim()).toBe(
      `error: Port ${busyPort} is already in use; pass --port or set PORT to another port`,
    );
    // A usage mistake: exit 2, its line and the usage line.
    await expect(start(['--prot', '3400'])).rejects.toMatchObject({
      code: 2,
      stderr: expect.stringMatching(/^error: Unknown option '--prot'.*\nUsage: npm start .*\n$/),
    });
  });

  it('refuses with one line naming the running URL when a stack already runs on the same folder', async () => {
    const harness = inject('harness');
    const before = readFileSync(join(harness.stateDir, 'credentials.json'), 'utf8');

    const failure = await run(process.execPath, ['--import', 'tsx', 'infra/local/start.ts', '--port', '0'], {
      cwd: ROOT_DIR,
      env: { ...process.env, LOCAL_STATE_DIR: harness.stateDir },
      timeout: 60_000,
    }).catch((error) => error);

    expect(failure.code).toBe(1);
    expect(failure.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(
        new RegExp(`^error: A stack already runs on .* at ${harness.baseUrl} \\(pid \\d+\\)`),
      ),
    ]);
    expect(readFileSync(join(harness.stateDir, 'credentials.json'), 'utf8')).toBe(before);
  });

  it('stops with one clear line when Java is missing', async () => {
    const nodeOnly = dirname(process.execPath);

    const failure = await start(['--port', '0'], { PATH: nodeOnly }).catch((error) => error);
    expect(failure.code).toBe(1);
    expect(failure.stderr.trim()).toBe(
      'error: Java 17+ is required for DynamoDB Local but `java` was not found on PATH',
    );
  });
});

describe('npm run reset', () => {
  const reset = (stateDir: string) =>
    run(process.execPath, ['--import', 'tsx', 'infra/local/reset.ts', '--yes'], {
      cwd: ROOT_DIR,
      env: { ...process.env, LOCAL_STATE_DIR: stateDir },
      timeout: 60_000,
    });

  it('refuses in one line while a stack runs on the folder, and deletes nothing', async () => {
    const harness = inject('harness');

    const failure = await reset(harness.stateDir).catch((error) => error);

    expect(failure.code).toBe(1);
    expect(failure.stderr.trim()).toMatch(
      new RegExp(`^error: A stack already runs on .* at ${harness.baseUrl} `),
    );
    expect(failure.stderr.trim().split('\n')).toHaveLength(1);
    expect(existsSync(join(harness.stateDir, 'credentials.json'))).toBe(true);
  });

  it('deletes the folder when its lock was left by a stack that is gone', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bps-stale-'));
    const gone = spawn(process.execPath, ['-e', '']);
    await once(gone, 'exit');
    writeFileSync(join(dir, 'stack.lock'), JSON.stringify({ pid: gone.pid, url: 'http://127.0.0.1:1' }));

    await reset(dir);

    expect(existsSync(dir)).toBe(false);
  });
});

describe('stopping npm start', () => {
  const refusesConnections = async (url: string) =>
    fetch(url, { signal: AbortSignal.timeout(2_000) }).then(
      () => false,
      () => true,
    );

  it('runs one esbuild service however many function workers come and go, and Ctrl-C (SIGINT) stops it with DynamoDB Local and the other emulators', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'infra/local/start.ts', '--ephemeral', '--port', '0', '--ready-json'],
      // Two warm functions at most: every other invocation below reclaims a worker and starts one.
      {
        cwd: ROOT_DIR,
        stdio: ['pipe', 'pipe', 'inherit'],
        env: { ...process.env, LOCAL_MAX_WARM_FUNCTIONS: '2' },
      },
    );
    const exited = once(child, 'exit');
    const lines = createInterface({ input: child.stdout });
    const info = await new Promise<{ baseUrl: string; endpoints: Record<string, string>; stateDir: string }>(
      (resolve) => {
        lines.on('line', (line) => line.startsWith('HARNESS_READY ') && resolve(JSON.parse(line.slice(14))));
      },
    );
    expect(await refusesConnections(info.endpoints.dynamodb ?? '')).toBe(false);
    const servicesAtStart = esbuildServicesUnder(child.pid ?? 0);

    // Six functions, each answering without credentials (the agent API's a 401 of its own).
    const paths = [
      '/openapi.json',
      '/.well-known/oauth-authorization-server',
      '/api/v1/agent/webhooks',
      '/api/v1/agent/events',
      '/api/v1/edits/changesets/00000000-0000-4000-8000-000000000000',
      '/api/v1/admin/users',
    ];
    for (const path of [...paths, ...paths]) {
      const response = await fetch(`${info.baseUrl}${path}`);
      expect(response.status, path).toBeLessThan(500);
    }
    const services = esbuildServicesUnder(child.pid ?? 0);

    child.kill('SIGINT');
    const [code] = await exited;

    // The same one or two as at the start: the stack's threads that load TypeScript, not its workers.
    expect(servicesAtStart.length).toBeGreaterThanOrEqual(1);
    expect(servicesAtStart.length).toBeLessThanOrEqual(2);
    expect(services.sort()).toEqual(servicesAtStart.sort());
    expect(code).toBe(0);
    for (const endpoint of Object.values(info.endpoints))
      expect(await refusesConnections(endpoint)).toBe(true);
    expect(existsSync(info.stateDir)).toBe(false);
    // Each service exits as soon as it sees its parent's end of the pipe close.
    await vi.waitFor(() => expect(services.filter((pid) => existsSync(`/proc/${pid}`))).toEqual([]), {
      timeout: 5_000,
    });
  }, 90_000);
});

/**
 * The `esbuild --service` processes among a process's descendants (Linux's /proc). tsx transforms
 * TypeScript in one per thread that does it: the module hooks' thread, which Node 22 shares among
 * all worker threads (a function's worker registers tsx there, it starts no thread of its own), and
 * the main thread's require hook when its transform cache is cold. So a stack has one or two,
 * however many function workers it starts and stops.
 */
function esbuildServicesUnder(root: number): number[] {
  const parents = new Map<number, number>();
  const commands = new Map<number, string>();
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid)) continue;
    try {
      // The parent is the 4th field, after the command in parentheses (which may hold spaces).
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
      parents.set(pid, Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
      commands.set(pid, readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').join(' '));
    } catch {
      // Gone while being read.
    }
  }
  const under = (pid: number): boolean => {
    for (let at = parents.get(pid); at !== undefined && at > 1; at = parents.get(at))
      if (at === root) return true;
    return false;
  };
  return [...commands]
    .filter(([pid, command]) => /esbuild\S* --service/.test(command) && under(pid))
    .map(([pid]) => pid);
}
