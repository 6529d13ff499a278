import type { CloudFormationCustomResourceEvent } from 'aws-lambda';
import { deployedKeySet, NO_KEY_SET } from '#lib/auth/deployed-key-set.ts';
import { logger } from '#lib/observability/logger.ts';
import * as z from '#lib/validation/zod.ts';

/** What the stack gives the custom resource (infra/console-key-set.ts). */
const Properties = z.looseObject({ JwksUrl: z.url({ protocol: /^https?$/ }) });

/** What the provider framework sends back to CloudFormation: `KeySet` becomes the resource's attribute. */
interface OnEventResponse {
  PhysicalResourceId: string;
  Data?: { KeySet: string };
}

/**
 * onEvent of the console key set custom resource, run by CloudFormation at deployment: on Create
 * and Update (a new JWKS URL, that is a new user pool) it answers the issuer's public key set for
 * JWT_KEY_SET. It never fails the deployment: without a set it answers NO_KEY_SET and logs why.
 * Delete has nothing to remove. Not an HTTP route.
 */
export async function handler(event: CloudFormationCustomResourceEvent): Promise<OnEventResponse> {
  if (event.RequestType === 'Delete') return { PhysicalResourceId: event.PhysicalResourceId };
  const properties = z.safeParse(Properties, event.ResourceProperties);
  if (!properties.success) {
    logger.error('The console key set resource has no valid JwksUrl; the functions will fetch the set', {
      properties: event.ResourceProperties,
    });
    return { PhysicalResourceId: 'no-jwks-url', Data: { KeySet: NO_KEY_SET } };
  }
  const url = properties.data.JwksUrl;
  const { keySet, missing } = await deployedKeySet(new URL(url), 10_000);
  if (missing)
    logger.warn('No key set for JWT_KEY_SET; the console functions will fetch it', { reason: missing });
  else logger.info('Key set for JWT_KEY_SET', { url, keySet });
  return { PhysicalResourceId: url, Data: { KeySet: keySet } };
}
