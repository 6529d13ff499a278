import { describe, expect, it } from 'vitest';
import { ROOT_DIR } from '../../infra/local/paths.ts';
import { run } from '../support/cli-runs.ts';

/**
 * The long-running tools answer `--help` and a wrong option at once, before they start anything
 * (a local stack, a CDK synth): these runs would take minutes otherwise.
 */
const TOOLS = [
  { name: 'synth', file: 'infra/synth.ts' },
  { name: 'bench', file: 'bench/run.ts' },
  { name: 'load', file: 'bench/load.ts' },
] as const;

async function tool(file: string, args: string[]) {
  return run(process.execPath, ['--import', 'tsx', file, ...args], {
    cwd: ROOT_DIR,
    env: { PATH: process.env.PATH },
    timeout: 30_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

describe.each(TOOLS)('npm run $name', ({ name, file }) => {
  it('prints its usage for --help and -h, on stdout, and exits 0', async () => {
    const help = await tool(file, ['--help']);

    expect(help).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(new RegExp(`^Usage: npm run ${name}( -- \\[|$)`, 'm'));
    expect(help.stdout).toContain('-h, --help');
    expect((await tool(file, ['-h'])).stdout).toBe(help.stdout);
  }, 60_000);

  it('refuses an unknown option with exit code 2 and one line naming it and --help', async () => {
    const result = await tool(file, ['--colour', 'blue']);

    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toBe(
      `error: Unknown option '--colour' (npm run ${name} -- --help lists the options)\n`,
    );
  }, 60_000);
});

describe('option values', () => {
  it('bench refuses a section, a function or a run count it does not have, each in one line', async () => {
    const section = await tool('bench/run.ts', ['--only', 'cold,colds']);
    expect(section).toMatchObject({ code: 2, stdout: '' });
    expect(section.stderr).toBe(
      'error: --only: no section "colds"; the sections are cold, parts, agent, edits, oauth, mcp, media, iam, events (npm run bench -- --help lists the options)\n',
    );

    const fn = await tool('bench/run.ts', ['--functions', 'getFaq,getFaqs']);
    expect(fn).toMatchObject({ code: 2, stdout: '' });
    expect(fn.stderr).toMatch(/^error: --functions: no operation "getFaqs" in the route table \(.*\)\n$/);

    const runs = await tool('bench/run.ts', ['--runs', '0']);
    expect(runs).toMatchObject({ code: 2, stdout: '' });
    expect(runs.stderr).toMatch(/^error: --runs must be a whole number of at least 1 \(.*\)\n$/);
  }, 90_000);

  it('load refuses a client count that is not a whole number, and an option without its value', async () => {
    const clients = await tool('bench/load.ts', ['--clients', '2.5']);
    expect(clients).toMatchObject({ code: 2, stdout: '' });
    expect(clients.stderr).toBe(
      'error: --clients must be a whole number of at least 1 (npm run load -- --help lists the options)\n',
    );

    const missing = await tool('bench/load.ts', ['--seconds']);
    expect(missing).toMatchObject({ code: 2, stdout: '' });
    expect(missing.stderr).toMatch(/^error: Option '--seconds <value>' argument missing \(.*\)\n$/);
  }, 60_000);
});
