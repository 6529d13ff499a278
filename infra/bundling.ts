/**
 * How every function is bundled: by CDK for deployment and by the bench for measurement, so the
 * figures the bench prints are those of what gets deployed.
 */
export const BUNDLE_TARGET = 'node22';

/**
 * An ESM bundle that includes the AWS SDK hits `Dynamic require of "node:https" is not supported`
 * at import unless require is recreated at the top of the file (DESIGN §2).
 */
export const ESM_REQUIRE_BANNER =
  "import { createRequire as __bpsCreateRequire } from 'node:module'; const require = __bpsCreateRequire(import.meta.url);";

/** esbuild options shared by CDK's NodejsFunction and the bench's direct esbuild call. */
export const esbuildOptions = {
  bundle: true,
  platform: 'node' as const,
  format: 'esm' as const,
  target: BUNDLE_TARGET,
  minify: true,
  sourcemap: true,
  mainFields: ['module', 'main'],
  banner: { js: ESM_REQUIRE_BANNER },
  // The AWS SDK is bundled, not taken from the runtime: pinned versions, smaller cold start.
  external: [] as string[],
};
