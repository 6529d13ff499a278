import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { appendFileSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { RunningHarness } from './harness.ts';
import type { IamReport } from './iam/enforcer.ts';
import { ROOT_DIR } from './paths.ts';

/** What a harness started with --ready-json reports about itself (start.ts prints it). */
export type HarnessInfo = Omit<RunningHarness, 'stop' | 'iamReport' | 'runSchedule' | 'queuesIdle'>;

export interface HarnessProcess {
  info: HarnessInfo;
  /** Stops it; resolves to the IAM decisions it made over its life (undefined if it never said). */
  stop(): Promise<IamReport | undefined>;
}

/**
 * Run `infra/local/start.ts --ephemeral --port 0 --ready-json` as its own process, exactly the
 * program behind `npm start`, and wait for its ready line. Closing its stdin stops it, so it also
 * stops if this process dies.
 */
export async function startHarnessProcess(): Promise<HarnessProcess> {
  const child: ChildProcess = spawn(
    process.execPath,
    ['--import', 'tsx', 'infra/local/start.ts', '--ephemeral', '--port', '0', '--ready-json'],
    {
      cwd: ROOT_DIR,
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, POWERTOOLS_LOG_LEVEL: 'ERROR' },
    },
  );
  let stderr = '';
  child.stderr?.on('data', (chunk) => {
    if (process.env.DEBUG_HARNESS_LOG) appendFileSync(process.env.DEBUG_HARNESS_LOG, String(chunk));
    stderr += chunk;
  });
  const exited = once(child, 'exit');
  const lines = createInterface({ input: child.stdout as NodeJS.ReadableStream });
  let report: IamReport | undefined;
  const info = await new Promise<HarnessInfo>((resolve, reject) => {
    lines.on('line', (line) => {
      if (process.env.DEBUG_HARNESS_LOG) appendFileSync(process.env.DEBUG_HARNESS_LOG, `${line}\n`);
      if (line.startsWith('HARNESS_READY ')) resolve(JSON.parse(line.slice('HARNESS_READY '.length)));
      if (line.startsWith('HARNESS_IAM ')) report = JSON.parse(line.slice('HARNESS_IAM '.length));
    });
    void exited.then(() => reject(new Error(`harness exited before it was ready:\n${stderr}`)));
  });
  child.stdout?.resume();
  return {
    info,
    async stop() {
      child.stdin?.end();
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      await exited;
      clearTimeout(timer);
      return report;
    },
  };
}
