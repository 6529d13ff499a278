import { build } from 'esbuild';

/** One browser script (an IIFE, every import bundled in) from a TypeScript entry point. */
export async function bundlePageScript(entryPoint: string): Promise<string> {
  const bundle = await build({
    entryPoints: [entryPoint],
    bundle: true,
    format: 'iife',
    platform: 'browser',
    target: 'es2022',
    write: false,
    logLevel: 'error',
  });
  const script = bundle.outputFiles[0]?.text;
  if (!script) throw new Error(`esbuild produced nothing for ${entryPoint}`);
  return script;
}
