import { spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ROOT_DIR } from '../../infra/local/paths.ts';
import { stageSettingsFile } from '../../infra/stage-settings.ts';

/** `npm run deploy` up to the point where it would need AWS: no credentials reach it here. */
function deploy(...args: string[]) {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'infra/deploy.ts', ...args], {
    cwd: ROOT_DIR,
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH,
      HOME: '/nonexistent',
      AWS_CONFIG_FILE: '/nonexistent',
      AWS_SHARED_CREDENTIALS_FILE: '/nonexistent',
      AWS_EC2_METADATA_DISABLED: 'true',
    },
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr.trim().split('\n') };
}

describe('npm run deploy', () => {
  it('prints the effective settings of the stage, marking the defaults, before it needs AWS', () => {
    const { status, stdout, stderr } = deploy('--stage', 'dev');

    expect(stdout).toContain('Stage dev: settings from stages/dev.json, defaults for the rest');
    expect(stdout).toMatch(/^ {2}consoleUrl +https:\/\/console\.example\.com$/m);
    expect(stdout).toMatch(/^ {2}cognitoTier +essentials +\(default\)$/m);
    expect(status).toBe(1);
    expect(stderr).toEqual([expect.stringMatching(/^error: no AWS credentials found/)]);
  }, 60_000);

  it('requires --stage, since CDK would otherwise deploy dev and its placeholder domains', () => {
    const { status, stdout, stderr } = deploy();
    expect(status).toBe(2);
    expect(stdout).toBe('');
    expect(stderr).toEqual([
      'error: --stage is required, e.g. --stage prod (npm run deploy -- --help lists the options)',
      'Usage: npm run deploy -- --stage NAME [-- cdk deploy options…]',
    ]);
    expect(deploy('--require-approval', 'never').status).toBe(2);
    // cdk deploy's options go after a second --.
    expect(deploy('--stage', 'dev', 'never').stderr[0]).toBe(
      "error: unexpected argument 'never' (cdk deploy's options go after --) (npm run deploy -- --help lists the options)",
    );
  }, 60_000);

  it('answers --help with its usage, and does nothing else', () => {
    for (const help of ['--help', '-h']) {
      const { status, stdout, stderr } = deploy(help);
      expect(status).toBe(0);
      expect(stdout).toMatch(/^Usage: npm run deploy -- --stage NAME \[-- cdk deploy options…\]$/m);
      expect(stdout).not.toContain('Stage ');
      expect(stderr).toEqual(['']);
    }
  }, 60_000);

  it('warns, before it needs AWS, that a stage without alarmEmail deploys alarms that notify nobody', () => {
    const stage = `t-${process.pid}`;
    const file = stageSettingsFile(stage);
    const settings = {
      sesSender: 'no-reply@mail.customer.test',
      consoleUrl: 'https://console.customer.test',
    };
    try {
      writeFileSync(file, JSON.stringify(settings));
      const without = deploy('--stage', stage);
      expect(without.stdout).toContain(
        `warning: alarmEmail is not set: the stage's alarms will notify nobody. Set "alarmEmail" in stages/${stage}.json`,
      );
      expect(without.stderr).toEqual([expect.stringMatching(/^error: no AWS credentials found/)]);

      writeFileSync(file, JSON.stringify({ ...settings, alarmEmail: 'oncall@customer.test' }));
      expect(deploy('--stage', stage).stdout).not.toContain('alarmEmail is not set');
    } finally {
      rmSync(file, { force: true });
    }
  }, 60_000);

  it('refuses settings on the command line, which CDK would not remember', () => {
    const { status, stderr } = deploy('--stage', 'dev', '-c', 'alarmEmail=oncall@example.com');
    expect(status).toBe(2);
    expect(stderr).toEqual([
      'error: put settings in stages/dev.json instead of -c (CDK does not keep command-line context, so the next deploy would undo them) (npm run deploy -- --help lists the options)',
      'Usage: npm run deploy -- --stage NAME [-- cdk deploy options…]',
    ]);
  }, 60_000);

  it('refuses a stage without a settings file, and a stage name that is not one', () => {
    expect(deploy('--stage', 'prod').stderr).toEqual([
      'error: no settings for stage prod: create stages/prod.json (docs/deploy.md lists every setting)',
    ]);
    expect(deploy('--stage', '../etc').stderr).toEqual([
      'error: --stage "../etc" must be a stage name such as prod (npm run deploy -- --help lists the options)',
      'Usage: npm run deploy -- --stage NAME [-- cdk deploy options…]',
    ]);
  }, 60_000);
});
