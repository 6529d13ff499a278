import { fromEnv } from '@aws-sdk/credential-provider-env';

/**
 * The AWS SDK's default credential chain as a deployed function needs it: the environment only.
 *
 * Lambda gives a function its execution role's keys in `AWS_ACCESS_KEY_ID`,
 * `AWS_SECRET_ACCESS_KEY` and `AWS_SESSION_TOKEN`, and the SDK's own chain
 * (`@aws-sdk/credential-provider-node`) takes them from there before anything else. The rest of
 * that chain (profiles, SSO, web identity, container and instance metadata) never runs in Lambda,
 * yet its STS and SSO clients come into every bundle. The bundles therefore alias the chain's
 * package to this file (infra/bundling.ts, `BUNDLE_ALIASES`); code run by Node without a bundle
 * (the local harness, the command-line tools) keeps the SDK's full chain.
 */
export const defaultProvider: typeof fromEnv = (init) => fromEnv(init);
