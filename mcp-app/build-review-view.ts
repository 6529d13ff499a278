import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build, type Plugin, transform } from 'esbuild';

/**
 * Builds the changeset review view into one self-contained HTML page (MCP Apps: the host loads
 * the resource's text as the whole document): the script bundled for browsers with esbuild and
 * inlined, the style sheet minified and inlined, nothing loaded from anywhere. Its own
 * Content-Security-Policy allows no network, frame, form or base URL, so the view can reach the
 * service only through the host bridge, whatever the host allows. Written beside the tool server's
 * code at bundling, and into the local harness's task root at start (infra/bundle-files.ts); the
 * output is never committed.
 */
const HERE = fileURLToPath(new URL('.', import.meta.url));

const CSP = [
  "default-src 'none'",
  "script-src 'unsafe-inline'",
  "style-src 'unsafe-inline'",
  'img-src data:',
  "connect-src 'none'",
  "frame-src 'none'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/**
 * zod, which the MCP SDK inside the App class uses, publishes every locale through one barrel
 * (`z.locales`) that a namespace import keeps whole: ~250 KB of error messages in 50 languages
 * the view never shows. Only English, the one zod configures by default, is kept.
 */
const englishZodOnly: Plugin = {
  name: 'english-zod-only',
  setup(builder) {
    builder.onResolve({ filter: /^\.\.\/locales\/index\.js$/ }, (args) =>
      /[\\/]zod[\\/]/.test(args.importer)
        ? { path: join(args.resolveDir, '..', 'locales', 'en.js'), namespace: 'zod-locales' }
        : undefined,
    );
    builder.onLoad({ filter: /.*/, namespace: 'zod-locales' }, (args) => ({
      contents: `export { default as en } from ${JSON.stringify(args.path)};`,
      loader: 'js',
      resolveDir: HERE,
    }));
  },
};

let built: Promise<string> | undefined;

/** The page's HTML (built once per process). */
export function buildReviewViewHtml(): Promise<string> {
  built ??= buildHtml();
  return built;
}

async function buildHtml(): Promise<string> {
  const [bundle, styled] = await Promise.all([
    build({
      entryPoints: [join(HERE, 'review-view.ts')],
      bundle: true,
      format: 'iife',
      platform: 'browser',
      target: 'es2022',
      minify: true,
      legalComments: 'none',
      write: false,
      logLevel: 'error',
      plugins: [englishZodOnly],
    }),
    transform(readFileSync(join(HERE, 'review-view.css'), 'utf8'), { loader: 'css', minify: true }),
  ]);
  const script = bundle.outputFiles[0]?.text;
  const style = styled.code;
  if (script === undefined) throw new Error('esbuild produced no script for the review view');
  // The inlined text must not close its own element early.
  if (/<\/script/i.test(script) || /<\/style/i.test(style)) {
    throw new Error('the review view script or style contains a closing tag');
  }
  return [
    '<!doctype html><html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    `<meta http-equiv="Content-Security-Policy" content="${CSP}">`,
    '<title>Review proposed changes</title>',
    `<style>${style}</style></head>`,
    '<body><main id="review" aria-live="polite"></main>',
    `<script>${script}</script></body></html>`,
  ].join('');
}
