import { build } from 'esbuild';
import { esbuildOptions } from '../../infra/bundling.ts';

const { metafile } = await build({
  ...esbuildOptions,
  sourcemap: false,
  entryPoints: [process.argv[2]!],
  outfile: '/tmp/meta-out.cjs',
  metafile: true,
  logLevel: 'error',
});
const out = Object.values(metafile.outputs)[0]!;
const filter = process.argv[3] ?? '';
const rows = Object.entries(out.inputs)
  .filter(([p]) => p.includes(filter))
  .sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput);
for (const [p, { bytesInOutput }] of rows.slice(0, 40)) console.log(String(bytesInOutput).padStart(7), p);
