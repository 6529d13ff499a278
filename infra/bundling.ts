/**
 * How every function is bundled: by CDK for deployment and by the bench for measurement, so the
 * figures the bench prints are those of what gets deployed.
 */
export const BUNDLE_TARGET = 'node22';

/**
 * CommonJS, not ESM (docs/architecture.md, 'Cold starts'): an ESM bundle imports `node:http` as an ES
 * module, and building that namespace makes Node 22 load its bundled undici (http's lazy
 * `WebSocket` exports) in every function's cold start, though nothing uses it; the same
 * code as CommonJS `require`s it and never does. ESM sources are still what esbuild reads
 * (`mainFields`), so tree shaking is unchanged, and CommonJS needs no `createRequire` banner.
 */
export const BUNDLE_FORMAT = 'cjs' as const;

/**
 * The bundle's file name. Lambda's runtime `require`s an `index.js` outside a `"type": "module"`
 * package (CDK's CommonJS output); locally `.cjs` says the same wherever the file lands.
 */
export const BUNDLE_FILE = 'index.cjs';

/** esbuild options shared by CDK's NodejsFunction and the bench's direct esbuild call. */
export const esbuildOptions = {
  bundle: true,
  platform: 'node' as const,
  format: BUNDLE_FORMAT,
  target: BUNDLE_TARGET,
  minify: true,
  sourcemap: true,
  mainFields: ['module', 'main'],
  // The AWS SDK is bundled, not taken from the runtime: pinned versions, smaller cold start.
  external: [] as string[],
};
