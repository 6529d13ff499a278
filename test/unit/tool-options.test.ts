import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT_DIR } from '../../infra/local/paths.ts';
import { run } from '../support/cli-runs.ts';

/**
 * Every tool (the npm scripts of package.json) parses its command line the same way
 * (infra/command-line.ts): `--help` prints the usage with an example and exits 0 having done
 * nothing (no stack started, nothing written or deleted, no account touched); a usage mistake
 * exits 2 with one line naming it, then the usage line. None of these runs starts a stack.
 */
const TOOLS = [
  { name: 'npm start', file: 'infra/local/start.ts' },
  { name: 'npm run reset', file: 'infra/local/reset.ts' },
  { name: 'npm run token', file: 'infra/local/cli/token.ts' },
  { name: 'npm run invoke', file: 'infra/local/cli/invoke.ts' },
  { name: 'npm run event', file: 'infra/local/cli/event.ts' },
  { name: 'npm run agent-key', file: 'infra/local/cli/agent-key.ts', commands: 'create, list, revoke' },
  {
    name: 'npm run admin',
    file: 'infra/local/cli/admin.ts',
    commands: 'bootstrap, create, list, end-grants',
  },
  {
    name: 'npm run business',
    file: 'infra/local/cli/business.ts',
    commands: 'create, add-member, remove-member',
  },
  {
    name: 'npm run oauth-client',
    file: 'infra/local/cli/oauth-client.ts',
    commands: 'create, list, revoke, block, unblock',
  },
  { name: 'npm run oauth-keys', file: 'infra/local/cli/oauth-keys.ts', commands: 'list, rotate' },
  { name: 'npm run gallery', file: 'infra/local/cli/gallery.ts', commands: 'add, list' },
  { name: 'npm run openapi', file: 'infra/local/cli/openapi.ts' },
  { name: 'npm run smoke', file: 'infra/smoke.ts' },
  { name: 'npm run build:pages', file: 'console-pages/build-command.ts' },
  { name: 'npm run synth', file: 'infra/synth.ts' },
  { name: 'npm run deploy', file: 'infra/deploy.ts' },
  { name: 'npm run bench', file: 'bench/run.ts' },
  { name: 'npm run load', file: 'bench/load.ts' },
  { name: 'npm run screenshot:review', file: 'test/support/review-view-screenshot.ts' },
  { name: 'npm run dashboard:picture', file: 'infra/write-dashboard-picture.ts' },
] as const;

// A local stack's folder with something in it: `reset -- --help` must leave it, and no tool may
// start a stack in it (a stack would write its lock and credentials there).
const stateDir = mkdtempSync(join(tmpdir(), 'bps-tool-options-'));
writeFileSync(join(stateDir, 'keep.txt'), 'the local data');
afterAll(() => rmSync(stateDir, { recursive: true, force: true }));

/** What the tools could write or delete, as it is now: each file's bytes and time, each folder's entries. */
function snapshot(): Record<string, string> {
  const files = ['docs/dashboard.svg', 'docs/images/review-view.png', 'bench/results.md'].map((file) =>
    join(ROOT_DIR, file),
  );
  const entries = [
    ...files.map((file) => [
      file,
      `${createHash('sha256').update(readFileSync(file)).digest('hex')} ${statSync(file).mtimeMs}`,
    ]),
    ...[stateDir, join(ROOT_DIR, '.local'), join(ROOT_DIR, 'dist')].map((dir) => [
      dir,
      existsSync(dir) ? readdirSync(dir).sort().join(',') : '(none)',
    ]),
  ];
  return Object.fromEntries(entries);
}

async function tool(file: string, args: string[], env: Record<string, string> = {}) {
  return run(process.execPath, ['--import', 'tsx', file, ...args], {
    cwd: ROOT_DIR,
    // No AWS credentials reach a tool here (deploy's preflight would need them).
    env: {
      PATH: process.env.PATH ?? '',
      LOCAL_STATE_DIR: stateDir,
      AWS_CONFIG_FILE: '/nonexistent',
      AWS_SHARED_CREDENTIALS_FILE: '/nonexistent',
      AWS_EC2_METADATA_DISABLED: 'true',
      ...env,
    },
    timeout: 60_000,
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
}

/** A usage mistake: exit 2, nothing on stdout, one line naming it and then the usage line. */
function expectUsageMistake(
  result: { code: number; stdout: string; stderr: string },
  name: string,
  message: string | RegExp,
) {
  expect(result, result.stderr).toMatchObject({ code: 2, stdout: '' });
  const lines = result.stderr.trimEnd().split('\n');
  expect(lines, result.stderr).toHaveLength(2);
  if (typeof message === 'string')
    expect(lines[0]).toBe(`error: ${message} (${name} -- --help lists the options)`);
  else expect(lines[0]).toMatch(message);
  expect(lines[1]).toMatch(new RegExp(`^Usage: ${name}( |$)`));
}

describe.each(TOOLS)('$name', ({ name, file, ...rest }) => {
  it('prints its usage with an example for --help, changing nothing; refuses an unknown option with exit 2', async () => {
    const before = snapshot();

    const [help, unknown] = await Promise.all([tool(file, ['--help']), tool(file, ['--colour', 'blue'])]);

    expect(help, help.stderr).toMatchObject({ code: 0, stderr: '' });
    expect(help.stdout).toMatch(new RegExp(`^Usage: ${name}( |\\n)`));
    expect(help.stdout).toContain('-h, --help');
    expect(help.stdout).toMatch(/\nExample:\n {2}\S/);
    if ('commands' in rest)
      for (const command of rest.commands.split(', ')) expect(help.stdout).toContain(command);
    expectUsageMistake(unknown, name, "Unknown option '--colour'");
    expect(snapshot()).toEqual(before);
  }, 90_000);
});

describe('every tool alike', () => {
  it('answers -h as --help, and --help after other arguments too', async () => {
    const [short, long, late] = await Promise.all([
      tool('infra/local/reset.ts', ['-h']),
      tool('infra/local/reset.ts', ['--help']),
      tool('infra/local/cli/agent-key.ts', ['revoke', 'x', '--help']),
    ]);
    expect(short).toEqual(long);
    expect(late).toMatchObject({ code: 0, stderr: '' });
    expect(late.stdout).toMatch(/^Usage: npm run agent-key/);
    expect(existsSync(join(stateDir, 'keep.txt'))).toBe(true);
  }, 60_000);

  it('lists the sub-commands when none or an unknown one is named, and refuses an option the sub-command does not take', async () => {
    const [none, unknown, foreign, missing] = await Promise.all([
      tool('infra/local/cli/agent-key.ts', []),
      tool('infra/local/cli/oauth-keys.ts', ['rotat']),
      tool('infra/local/cli/agent-key.ts', ['list', '--name', 'x']),
      tool('infra/local/cli/oauth-client.ts', ['revoke']),
    ]);
    expectUsageMistake(none, 'npm run agent-key', 'name a command: the commands are create, list, revoke');
    expectUsageMistake(
      unknown,
      'npm run oauth-keys',
      "unknown command 'rotat'; the commands are list, rotate",
    );
    expectUsageMistake(foreign, 'npm run agent-key', 'list takes no --name');
    expectUsageMistake(missing, 'npm run oauth-client', 'revoke needs CLIENT_ID');
  }, 60_000);

  it('a missing argument or a bad value exits 2 naming it', async () => {
    const [token, hours, port, event, smoke, pages, deploy] = await Promise.all([
      tool('infra/local/cli/token.ts', ['--email']),
      tool('infra/local/cli/token.ts', ['--email', 'a@b.example', '--hours', 'soon']),
      tool('infra/local/start.ts', ['--port', 'eighty']),
      tool('infra/local/cli/event.ts', []),
      tool('infra/smoke.ts', ['--url', 'ftp://example.com']),
      tool('console-pages/build-command.ts', ['--base-path', 'console']),
      tool('infra/deploy.ts', ['--stage', 'dev', '--require-approval', 'never']),
    ]);
    expectUsageMistake(token, 'npm run token', /^error: Option '--email <value>' argument missing/);
    expectUsageMistake(hours, 'npm run token', '--hours must be a positive number');
    expectUsageMistake(port, 'npm start', "--port must be a port number (0 to 65535), got 'eighty'");
    expectUsageMistake(event, 'npm run event', /^error: name an operation: npm run event -- <operationId>/);
    expectUsageMistake(smoke, 'npm run smoke', /^error: --url must be an http\(s\) URL/);
    expectUsageMistake(pages, 'npm run build:pages', "--base-path must start and end with /, got 'console'");
    expectUsageMistake(deploy, 'npm run deploy', "Unknown option '--require-approval'");
  }, 90_000);

  it('what destroys or rotates needs --yes when not on a terminal, and does nothing without it', async () => {
    const elsewhere = { TABLE_NAME: 'no-such-table', OAUTH_SIGNING_KEY_FILE: '/nonexistent' };
    const runs = await Promise.all([
      tool('infra/local/reset.ts', []),
      tool('infra/local/cli/agent-key.ts', ['revoke', '00000000-0000-4000-8000-000000000000'], elsewhere),
      tool('infra/local/cli/oauth-client.ts', ['revoke', 'some-client'], elsewhere),
      tool('infra/local/cli/oauth-keys.ts', ['rotate'], elsewhere),
      tool('infra/local/cli/admin.ts', ['end-grants', '--email', 'a@b.example'], elsewhere),
    ]);
    const names = ['reset', 'agent-key', 'oauth-client', 'oauth-keys', 'admin'];
    for (const [index, result] of runs.entries())
      expectUsageMistake(result, `npm run ${names[index]}`, /^error: this would .*: pass --yes to confirm/);
    expect(existsSync(join(stateDir, 'keep.txt'))).toBe(true);

    const reset = mkdtempSync(join(tmpdir(), 'bps-reset-yes-'));
    await tool('infra/local/reset.ts', ['--yes'], { LOCAL_STATE_DIR: reset });
    expect(existsSync(reset)).toBe(false);
  }, 90_000);
});

describe('option values', () => {
  it('bench refuses a section, a function or a run count it does not have, each naming it', async () => {
    const [section, fn, runs] = await Promise.all([
      tool('bench/run.ts', ['--only', 'cold,colds']),
      tool('bench/run.ts', ['--functions', 'getFaq,getFaqs']),
      tool('bench/run.ts', ['--runs', '0']),
    ]);
    expectUsageMistake(
      section,
      'npm run bench',
      '--only: no section "colds"; the sections are cold, parts, agent, edits, oauth, mcp, media, iam, events, webhooks',
    );
    expectUsageMistake(fn, 'npm run bench', /^error: --functions: no operation "getFaqs" in the route table/);
    expectUsageMistake(runs, 'npm run bench', '--runs must be a whole number of at least 1');
  }, 90_000);

  it('load refuses a client count that is not a whole number, and an option without its value', async () => {
    const [clients, missing] = await Promise.all([
      tool('bench/load.ts', ['--clients', '2.5']),
      tool('bench/load.ts', ['--seconds']),
    ]);
    expectUsageMistake(clients, 'npm run load', '--clients must be a whole number of at least 1');
    expectUsageMistake(missing, 'npm run load', /^error: Option '--seconds <value>' argument missing/);
  }, 60_000);

  it('synth refuses a misspelt -c key naming it and the closest setting, before CDK runs', async () => {
    const misspelt = await tool('infra/synth.ts', ['-c', 'stag=prod', '-c', 'alarmEmial=a@b.example']);
    expectUsageMistake(
      misspelt,
      'npm run synth',
      '-c stag: not a setting; did you mean stage? (docs/deploy.md lists every setting)',
    );
  }, 60_000);

  it('openapi prints a summary, writes a file with --out, and the document with --json', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'bps-openapi-'));
    try {
      const out = join(dir, 'openapi.json');
      const [summary, written, json] = await Promise.all([
        tool('infra/local/cli/openapi.ts', []),
        tool('infra/local/cli/openapi.ts', ['--out', out]),
        tool('infra/local/cli/openapi.ts', ['--json', '--server', 'https://api.example.com']),
      ]);
      expect(summary.stdout).toMatch(/^Business Platform Service .*: \d+ operations\n/);
      expect(summary.stdout).toMatch(
        /^ {2}GET +\/api\/v1\/businesses\/\{business_id\}\/blog_posts\/auto_schedule +getBlogAutoSchedule$/m,
      );
      expect(written.stdout).toMatch(/^wrote .*openapi\.json \(\d+ operations\)\n$/);
      expect(JSON.parse(readFileSync(out, 'utf8')).openapi).toBe('3.1.0');
      expect(JSON.parse(json.stdout).servers).toEqual([{ url: 'https://api.example.com' }]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);
});
