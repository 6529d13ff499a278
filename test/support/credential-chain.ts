/**
 * A bundled module of the SDK's default credential chain beyond the environment (profiles, SSO,
 * web identity, containers, instance metadata, and the STS and SSO clients they call), which the
 * bundles replace with the environment alone (infra/bundling.ts, `BUNDLE_ALIASES`). Matches a
 * path as esbuild's metafile or a source map names it.
 */
export const CREDENTIAL_CHAIN_MODULE =
  /node_modules\/@aws-sdk\/(credential-provider-(?!env\/)[^/]+|nested-clients|token-providers)\/|node_modules\/@smithy\/credential-provider-imds\//;

/** Where the environment's credentials come from instead. */
export const ENVIRONMENT_CREDENTIALS_MODULE = 'lib/config/lambda-credentials.ts';
