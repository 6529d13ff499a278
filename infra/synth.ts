/**
 * `npm run synth`: `cdk synth --quiet`, summed up in a few lines. CDK prints one bundling report per
 * function (about ninety); they are kept and shown only when the synth fails, and while it runs
 * stderr names each function as it is bundled. `--help` lists the options.
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseCommandLine, progress, usageError } from './command-line.ts';
import { closestMatch } from './local/cli/closest-match.ts';
import { ROOT_DIR } from './local/paths.ts';
import { STAGE_SETTING_KEYS } from './stage-settings.ts';

const COMMAND = {
  name: 'npm run synth',
  usage: `
Usage: npm run synth -- [--output DIR] [-c stage=NAME] [STACK…]

Builds the CloudFormation templates of every stack (or the STACKs named) offline, bundling each
function with the local esbuild (no Docker, no AWS access), and prints a short summary; stderr
names each function as it is bundled. CDK's own output is shown only when the synth fails.

  --output DIR        where the cloud assembly goes (default cdk.out)
  -c, --context K=V   a CDK context value, e.g. -c stage=prod for that stage's settings, or a
                      setting of stages/<stage>.json for this synth only (repeatable)
  -h, --help          this text

Example:
  npm run synth -- -c stage=prod -c alarmEmail=oncall@example.com
`,
};
const { values, positionals } = parseCommandLine(COMMAND, {
  options: {
    output: { type: 'string', default: 'cdk.out' },
    context: { type: 'string', short: 'c', multiple: true, default: [] },
  },
  allowPositionals: true,
});
// A misspelt key would be ignored by CDK and the app alike: refuse it, as a stage file's is.
const { context: cdkJson } = JSON.parse(readFileSync(join(ROOT_DIR, 'cdk.json'), 'utf8')) as {
  context: Record<string, unknown>;
};
const KNOWN_KEYS = ['stage', ...STAGE_SETTING_KEYS];
for (const setting of values.context) {
  const key = setting.split('=')[0] ?? '';
  if (!setting.includes('=') || key === '') usageError(COMMAND, `-c ${setting}: give a key=value`);
  const cdkOwn = key in cdkJson || key.startsWith('@aws-cdk') || key.startsWith('aws:cdk:');
  if (!cdkOwn && !KNOWN_KEYS.includes(key))
    usageError(
      COMMAND,
      `-c ${key}: not a setting; did you mean ${closestMatch(key, KNOWN_KEYS)}? (docs/deploy.md lists every setting)`,
    );
}
const outDir = resolve(ROOT_DIR, values.output);
const cdkArgs = [
  '--output',
  outDir,
  ...values.context.flatMap((setting) => ['--context', setting]),
  ...positionals,
];
const cdk = join(dirname(createRequire(import.meta.url).resolve('aws-cdk/package.json')), 'bin/cdk');
const startedAt = Date.now();

progress('synth: building the CDK app…');
const child = spawn(process.execPath, [cdk, 'synth', '--quiet', ...cdkArgs], {
  cwd: ROOT_DIR,
  stdio: ['ignore', 'pipe', 'pipe'],
});
let output = '';
child.stdout.on('data', (chunk) => {
  output += chunk;
});
// CDK writes `Bundling asset <construct path>...` to stderr as it starts each function's bundle.
let bundled = 0;
createInterface({ input: child.stderr }).on('line', (line) => {
  output += `${line}\n`;
  // The construct path without the function's inner parts: `<stack>/<operation>`.
  const asset = /^Bundling asset (\S+?)(?:\/Fn)?(?:\/Function)?(?:\/Code\/Stage)?\.\.\./.exec(line)?.[1];
  if (asset) progress(`synth: bundling ${++bundled}: ${asset}`);
});
// 'close', not 'exit': every line of its output has been read by then.
const [code] = (await once(child, 'close')) as [number | null];

if (code !== 0) {
  process.stderr.write(output);
  console.error(`error: cdk synth failed (exit ${code}); its output is above`);
  process.exit(1);
}

const manifest = JSON.parse(readFileSync(join(outDir, 'manifest.json'), 'utf8')) as {
  artifacts?: Record<string, { type: string }>;
};
const stacks = Object.entries(manifest.artifacts ?? {})
  .filter(([, artifact]) => artifact.type === 'aws:cloudformation:stack')
  .map(([name]) => name);
const bundles = readdirSync(outDir).filter((entry) => entry.startsWith('asset.')).length;
const warnings = output.split('\n').filter((line) => /\[Warning|warning:/i.test(line));
console.log(
  `Synthesized ${stacks.length} stacks and ${bundles} assets into ${relative(ROOT_DIR, outDir) || '.'}/ in ${Math.round((Date.now() - startedAt) / 1000)} s`,
);
console.log(`  stacks: ${stacks.join(', ')}`);
if (warnings.length > 0) console.log(`  ${warnings.length} warnings (cdk synth shows them all)`);
