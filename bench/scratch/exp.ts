import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startHarnessProcess } from '../../infra/local/harness-process.ts';
import { buildBundle, coldStart } from '../cold-start.ts';
import { warmDynamoDbLocal } from '../warm-emulator.ts';

const names = (
  process.env.EXP ??
  'baseline-handler,scratch/floor-par,scratch/floor-seq,scratch/floor-batch,scratch/floor-tx'
).split(',');
const rounds = Number(process.env.ROUNDS ?? 21);
const harness = await startHarnessProcess();
try {
  await warmDynamoDbLocal(harness.info);
  const dir = mkdtempSync(join(tmpdir(), 'exp-'));
  const bundles: string[] = [];
  for (const [i, n] of names.entries()) {
    const d = join(dir, String(i));
    mkdirSync(d);
    bundles.push((await buildBundle(`bench/${n}.ts`, d)).file);
  }
  const env = harness.info.env;
  const samples = names.map((): number[] => []);
  for (let r = 0; r <= rounds; r++)
    for (const [i, b] of bundles.entries()) {
      const c = await coldStart(b, {}, env);
      if (c.statusCode !== 200) throw new Error(`${names[i]} ${c.statusCode}`);
      if (r > 0) samples[i]?.push(c.importMs + c.invokeMs);
    }
  const med = (v: number[]) => {
    const s = [...v].sort((a, b) => a - b);
    return s[Math.floor(s.length / 2)] ?? 0;
  };
  const base = samples[0] ?? [];
  for (const [i, n] of names.entries()) {
    const s = samples[i] ?? [];
    const diffs = s.map((v, k) => v - (base[k] ?? v));
    console.log(
      `${n.padEnd(24)} median ${med(s).toFixed(1)} ms, over floor per round ${med(diffs).toFixed(1)} ms, ratio ${med(s.map((v, k) => v / (base[k] ?? v))).toFixed(3)}`,
    );
  }
} finally {
  await harness.stop();
}
