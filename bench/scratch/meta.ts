import { build } from 'esbuild';
import { esbuildOptions } from '../../infra/bundling.ts';

async function sizes(entry: string) {
  const { metafile } = await build({
    ...esbuildOptions,
    sourcemap: false,
    entryPoints: [entry],
    outfile: '/tmp/meta-out.cjs',
    metafile: true,
    logLevel: 'error',
  });
  const out = Object.values(metafile.outputs)[0]!;
  const by = new Map<string, number>();
  for (const [path, { bytesInOutput }] of Object.entries(out.inputs)) {
    const m = path.match(/node_modules\/((?:@[^/]+\/)?[^/]+)/);
    const key = m
      ? m[1]!
      : path.startsWith('lib/') || path.startsWith('functions/')
        ? path.split('/').slice(0, 2).join('/')
        : path;
    by.set(key, (by.get(key) ?? 0) + bytesInOutput);
  }
  return by;
}
const [a, b] = [await sizes(process.argv[2]!), await sizes(process.argv[3]!)];
const keys = new Set([...a.keys(), ...b.keys()]);
const rows = [...keys]
  .map((k) => [k, a.get(k) ?? 0, b.get(k) ?? 0] as const)
  .filter(([, x, y]) => x !== y)
  .sort((p, q) => q[2] - q[1] - (p[2] - p[1]));
let total = 0;
for (const [k, x, y] of rows) {
  total += y - x;
  console.log(k.padEnd(50), x, y, y - x);
}
console.log('total diff', total);
