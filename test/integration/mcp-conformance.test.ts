import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AuthProxy, startAuthProxy } from '../support/auth-proxy.ts';
import { baseUrl, obtainTokens } from '../support/oauth.ts';
import { arrangeTenant } from '../support/tenants.ts';

/**
 * The MCP conformance suite (@modelcontextprotocol/conformance) against POST /mcp: every server
 * scenario it knows, run by its own CLI with its own baseline check (--expected-failures), from
 * the baseline file next to this one. The suite sends no credentials, so it talks to a loopback
 * proxy that adds an assistant's access token to each request.
 *
 * Besides the CLI's verdict, the results (its checks.json files) are read here so that each
 * scenario is a line of its own, a failure names the check and its message, and a baselined
 * scenario must fail for a reason that means "does not apply", never for another one.
 */
const conformancePackage = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/conformance/package.json',
);
const { bin } = JSON.parse(readFileSync(conformancePackage, 'utf8')) as { bin: { conformance: string } };
const cli = join(dirname(conformancePackage), bin.conformance);
const baselineFile = fileURLToPath(new URL('./mcp-conformance-baseline.yml', import.meta.url));
const RUN_TIMEOUT_MS = 90_000;

/** The server scenarios the installed suite knows (`conformance list --server`). */
const scenarios = execFileSync(process.execPath, [cli, 'list', '--server'], { encoding: 'utf8' })
  .split('\n')
  .flatMap((line) => /^\s+- (\S+) \[/.exec(line)?.[1] ?? []);

/** The baseline's entries, each with the reason on its line (`  - name # reason`). */
const baseline = new Map(
  readFileSync(baselineFile, 'utf8')
    .split('\n')
    .flatMap((line) => {
      const entry = /^\s+- (\S+)(?:\s+#\s*(.*))?$/.exec(line);
      return entry ? [[entry[1] as string, entry[2] ?? ''] as const] : [];
    }),
);
const applicable = scenarios.filter((scenario) => !baseline.has(scenario));

/**
 * What a baselined scenario may fail with: each means the scenario needs something a stateless
 * server of tools and one resource, answering in JSON, does not have. A baselined scenario
 * failing otherwise (401, 500, a timeout, a malformed answer) fails this test.
 */
const DOES_NOT_APPLY = [
  /-32601: Method not found/, // a method of a capability the server does not declare
  /Unknown tool: \w+/, // a call of a fixture tool of the suite's "everything server"
  /Tool '?\w+'? not found/, // a fixture tool looked for in tools/list
  /Resource test:\/\/\S+ not found/, // a fixture resource of the suite's "everything server"
  /did not request (sampling|elicitation) from client/, // a server-to-client request
  /No (image|audio|resource) content found|Missing (image|resource) content/, // fixture tool content
  /did not provide session ID/, // a session (warning)
];

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  description: string;
  errorMessage?: string;
  details?: unknown;
}

/** The CLI, on the Node that runs the tests, with a time limit; its output for failure messages. */
function runConformance(args: string[]): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, ...args], {
      stdio: ['ignore', 'pipe', 'pipe'],
      timeout: RUN_TIMEOUT_MS,
      env: { ...process.env, NO_COLOR: '1' },
    });
    let output = '';
    child.stdout.on('data', (chunk) => {
      output += chunk;
    });
    child.stderr.on('data', (chunk) => {
      output += chunk;
    });
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({
        code,
        output: `${stripVTControlCharacters(output)}${signal ? `\n(killed by ${signal})` : ''}`,
      }),
    );
  });
}

/** checks.json of each scenario, from the CLI's output directory (server-<scenario>-<timestamp>/). */
function readResults(directory: string): Map<string, Check[]> {
  const results = new Map<string, Check[]>();
  for (const entry of readdirSync(directory)) {
    const scenario = /^server-(.+)-\d{4}-\d{2}-\d{2}T[\d-]+Z$/.exec(entry)?.[1];
    if (!scenario) continue;
    results.set(scenario, JSON.parse(readFileSync(join(directory, entry, 'checks.json'), 'utf8')) as Check[]);
  }
  return results;
}

const failing = (checks: Check[]) =>
  checks.filter((check) => check.status === 'FAILURE' || check.status === 'WARNING');
const describeChecks = (checks: Check[]) =>
  checks.map(
    (check) => `${check.id} ${check.status}: ${check.errorMessage ?? JSON.stringify(check.details)}`,
  );

describe('the tool server against the MCP conformance suite', () => {
  let proxy: AuthProxy;
  let outputDir: string;
  let run: { code: number | null; output: string };
  let results: Map<string, Check[]>;

  beforeAll(async () => {
    const tenant = await arrangeTenant();
    const { tokens } = await obtainTokens({
      userToken: tenant.tokens.owner,
      scope: 'edits:read edits:write',
    });
    proxy = await startAuthProxy({ target: `${baseUrl()}/mcp`, token: tokens.access_token });
    outputDir = mkdtempSync(join(tmpdir(), 'mcp-conformance-'));
    run = await runConformance([
      'server',
      '--url',
      `${proxy.origin}/mcp`,
      '--suite',
      'all',
      '--expected-failures',
      baselineFile,
      '--output-dir',
      outputDir,
    ]);
    results = readResults(outputDir);
  }, RUN_TIMEOUT_MS + 30_000);

  afterAll(async () => {
    await proxy?.stop();
    if (outputDir) rmSync(outputDir, { recursive: true, force: true });
  });

  it('runs every server scenario the suite knows, through the proxy, and its baseline check passes', () => {
    expect(scenarios.length).toBeGreaterThan(20);
    expect([...results.keys()].sort(), run.output).toEqual([...scenarios].sort());
    expect(proxy.forwarded()).toBeGreaterThan(scenarios.length);
    // Exit 0: no scenario outside the baseline failed, and none in it passed (a stale entry).
    const verdict = run.output.slice(Math.max(0, run.output.indexOf('=== SUMMARY ===')));
    expect(run.code, verdict).toBe(0);
    expect(run.output).toContain('Baseline check passed');
  });

  it('keeps a reason for each baselined scenario, and names only scenarios the suite has', () => {
    for (const [scenario, reason] of baseline) {
      expect(scenarios, `baseline entry ${scenario}`).toContain(scenario);
      expect(reason.length, `the reason for ${scenario}`).toBeGreaterThan(10);
    }
  });

  it.each(applicable)('passes %s', (scenario) => {
    const checks = results.get(scenario) ?? [];

    expect(checks.some((check) => check.status === 'SUCCESS')).toBe(true);
    expect(describeChecks(failing(checks))).toEqual([]);
  });

  it.each([...baseline.keys()])('still fails %s, for a reason that means it does not apply', (scenario) => {
    const failed = failing(results.get(scenario) ?? []);

    expect(
      failed.length,
      `${scenario} passes now (or did not run): remove it from the baseline`,
    ).toBeGreaterThan(0);
    for (const check of failed) {
      const text = JSON.stringify({ message: check.errorMessage, details: check.details });
      expect(
        DOES_NOT_APPLY.some((pattern) => pattern.test(text)),
        `${scenario}: ${describeChecks([check])}`,
      ).toBe(true);
    }
  });
});
