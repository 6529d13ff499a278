import { copyFileSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/**
 * Build the console pages into `outDir`: `index.html` (the shell every page path is answered
 * with), `app.js` (every page's script, bundled from src/ by esbuild), `console.css`. Nothing of a
 * deployment is built in: the pages read `config.json` (config.ts) at run time, which the
 * deployment writes beside them. The one thing fixed at build time is the base path the files are
 * served under ('/' on CloudFront, '/console/' behind the local harness), because the shell must
 * name its script and style by absolute path: it answers for every page path, at any depth, and
 * the CSP forbids a `<base>` element.
 */
export interface BuiltFile {
  name: string;
  bytes: number;
}

export const PAGE_FILES = { shell: 'index.html', script: 'app.js', style: 'console.css' } as const;

const sourceDir = fileURLToPath(new URL('./', import.meta.url));

/** The shell (`index.html`) for a base path, as the build writes it. */
export function pageShell(basePath = '/'): string {
  if (!/^\/([\w.-]+\/)*$/.test(basePath)) {
    throw new Error(`basePath must start and end with '/' (e.g. '/' or '/console/'), got '${basePath}'`);
  }
  return readFileSync(join(sourceDir, PAGE_FILES.shell), 'utf8').replaceAll('%BASE_PATH%', basePath);
}

export async function buildConsolePages(outDir: string, options: { basePath?: string } = {}) {
  const basePath = options.basePath ?? '/';
  const shell = pageShell(basePath);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: [join(sourceDir, 'src', 'main.ts')],
    outfile: join(outDir, PAGE_FILES.script),
    bundle: true,
    format: 'esm',
    platform: 'browser',
    target: ['es2022'],
    minify: true,
    legalComments: 'none',
    logLevel: 'silent',
    define: { CONSOLE_BASE_PATH: JSON.stringify(basePath) },
  });
  copyFileSync(join(sourceDir, PAGE_FILES.style), join(outDir, PAGE_FILES.style));
  writeFileSync(join(outDir, PAGE_FILES.shell), shell);
  return Object.values(PAGE_FILES).map(
    (name): BuiltFile => ({ name, bytes: statSync(join(outDir, name)).size }),
  );
}
