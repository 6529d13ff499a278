/**
 * `npm run synth`: `cdk synth --quiet`, summed up in a few lines. CDK prints one bundling report per
 * function (about ninety); they are kept and shown only when the synth fails. Extra arguments go to
 * cdk (e.g. `npm run synth -- --output out`).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT_DIR } from './local/paths.ts';

const args = process.argv.slice(2);
const outputIndex = args.indexOf('--output');
const outDir = resolve(ROOT_DIR, outputIndex >= 0 ? (args[outputIndex + 1] ?? 'cdk.out') : 'cdk.out');
const cdk = join(dirname(createRequire(import.meta.url).resolve('aws-cdk/package.json')), 'bin/cdk');
const startedAt = Date.now();

const child = spawn(process.execPath, [cdk, 'synth', '--quiet', ...args], {
  cwd: ROOT_DIR,
  stdio: ['ignore', 'pipe', 'pipe'],
});
let output = '';
child.stdout.on('data', (chunk) => {
  output += chunk;
});
child.stderr.on('data', (chunk) => {
  output += chunk;
});
const [code] = (await once(child, 'exit')) as [number | null];

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
