import { build } from '/work/main/node_modules/esbuild/lib/main.js';
import { esbuildOptions } from '/work/main/infra/bundling.ts';
const { metafile } = await build({ ...esbuildOptions, entryPoints: [process.argv[2]!], outfile: '/tmp/prof/x/index.cjs', write: false, metafile: true, logLevel: 'error' });
const out = Object.values(metafile.outputs).find((o) => o.entryPoint)!;
for (const [p, { bytesInOutput }] of Object.entries(out.inputs).filter(([p]) => p.includes(process.argv[3]!)).sort((a, b) => b[1].bytesInOutput - a[1].bytesInOutput)) console.log(bytesInOutput, p);
