import { ROOT_DIR } from './local/paths.ts';

/**
 * How every function is bundled: by CDK for deployment and by the bench for measurement, so the
 * figures the bench prints are those of what gets deployed.
 */
export const BUNDLE_TARGET = 'node22';

/**
 * CommonJS, not ESM (docs/cold-starts.md): an ESM bundle imports `node:http` as an ES
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

/**
 * Packages a bundle takes from elsewhere, by name, with the file (relative to the repository root)
 * that stands in for each. The SDK's default credential chain is replaced by its environment
 * source alone (lib/config/lambda-credentials.ts), which is where Lambda puts a function's
 * credentials: the rest of the chain brings the SDK's STS and SSO clients into every bundle, about
 * 135 KB of code that a cold start compiles and never runs (docs/decisions.md, 'Cold starts').
 */
export const BUNDLE_ALIASES: Readonly<Record<string, string>> = {
  '@aws-sdk/credential-provider-node': './lib/config/lambda-credentials.ts',
};

/** esbuild options shared by the deployed bundles' build (infra/batch-bundling.ts) and the bench's. */
export const esbuildOptions = {
  bundle: true,
  platform: 'node' as const,
  format: BUNDLE_FORMAT,
  target: BUNDLE_TARGET,
  minify: true,
  sourcemap: true,
  mainFields: ['module', 'main'],
  alias: BUNDLE_ALIASES,
  // The aliases' paths are the repository's, wherever the build is started from.
  absWorkingDir: ROOT_DIR,
  // The AWS SDK is bundled, not taken from the runtime: pinned versions, smaller cold start.
  external: [] as string[],
};
