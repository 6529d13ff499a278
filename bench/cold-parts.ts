import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildBundle, coldStart } from './cold-start.ts';
import { type Spread, spread } from './stats.ts';

/**
 * What the parts a function is made of cost a cold start, each alone: a probe per part
 * (bench/probes/), bundled as the functions are and loaded and called in fresh processes, the
 * probes interleaved round after round so they share the machine's state. A part's cost is its
 * median over the median of its base probe (the empty bundle, or the DynamoDB client for a part
 * that needs one). The figures add up only roughly: parts share modules (zod, the SDK's core).
 */
interface Part {
  probe: string;
  what: string;
  /** The probe this part is measured over. */
  base?: string;
}

const PARTS: Part[] = [
  { probe: 'empty', what: 'an empty handler: a fresh process loading and calling any bundle' },
  { probe: 'dynamodb-client', what: 'the DynamoDB document client (the floor has it too)', base: 'empty' },
  { probe: 'zod-ours', what: 'zod as our schemas use it (zod/mini), one small schema', base: 'empty' },
  {
    probe: 'zod-classic',
    what: 'the same schema in zod classic (used before; for comparison)',
    base: 'empty',
  },
  { probe: 'powertools-logger', what: 'Powertools logger and its middleware', base: 'empty' },
  { probe: 'middy', what: 'middy and its three HTTP middlewares', base: 'empty' },
  { probe: 'idempotency', what: 'Powertools idempotency (creating POSTs)', base: 'dynamodb-client' },
  {
    probe: 'mcp-sdk-server',
    what: 'the MCP SDK server and its HTTP transport (no function loads it since; for comparison)',
    base: 'empty',
  },
];

export interface PartFigures extends Part {
  bytes: number;
  init: Spread;
  /** Median init over the base probe's median init, ms. */
  overBase: number | undefined;
}

export async function measureParts(workDir: string, runs: number): Promise<PartFigures[]> {
  const bundles = new Map<string, { file: string; bytes: number }>();
  for (const part of PARTS) {
    const outDir = join(workDir, `probe-${part.probe}`);
    mkdirSync(outDir);
    bundles.set(part.probe, await buildBundle(`bench/probes/${part.probe}.ts`, outDir));
  }
  const samples = new Map<string, number[]>(PARTS.map((part) => [part.probe, []]));
  // One unmeasured round warms the disk cache.
  for (let round = 0; round <= runs; round++) {
    for (const part of PARTS) {
      const bundle = bundles.get(part.probe);
      if (!bundle) continue;
      const result = await coldStart(bundle.file, {}, {});
      if (result.statusCode !== 200) throw new Error(`probe ${part.probe} answered ${result.statusCode}`);
      if (round > 0) samples.get(part.probe)?.push(result.importMs + result.invokeMs);
    }
  }
  const init = new Map([...samples].map(([probe, values]) => [probe, spread(values)]));
  return PARTS.map((part) => {
    const own = init.get(part.probe) as Spread;
    const base = part.base ? init.get(part.base) : undefined;
    return {
      ...part,
      bytes: bundles.get(part.probe)?.bytes ?? 0,
      init: own,
      overBase: base ? own.median - base.median : undefined,
    };
  });
}
