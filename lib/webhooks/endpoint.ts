import { optionalEnv } from '#lib/config/env.ts';
import { ValidationError } from '#lib/http/errors.ts';
import { checkFetchTarget, SafeFetchError } from '#lib/net/safe-fetch.ts';

/**
 * Where a webhook may point (docs/webhooks.md, 'Endpoints'): an `https` URL whose host resolves to
 * public addresses only, checked by the same guard as every URL the service fetches for someone
 * else (lib/net/safe-fetch.ts) when the subscription is made or its URL changed, and again at
 * every delivery, which connects to exactly the addresses that check found.
 *
 * WEBHOOKS_ALLOW_LOOPBACK_HTTP=true (the local harness sets it, docs/harness.md) also lets plain
 * `http` to a loopback address through, so a receiver on `http://127.0.0.1:<port>` gets deliveries
 * from `npm start`. Every other internal range stays refused. AWS never sets it.
 */
export const loopbackAllowed = (): boolean => optionalEnv('WEBHOOKS_ALLOW_LOOPBACK_HTTP') === 'true';

/** 422 naming `url` when a delivery could never reach it or must not. */
export async function checkEndpointUrl(url: string): Promise<void> {
  try {
    await checkFetchTarget(url, { allowLoopback: loopbackAllowed() });
  } catch (error) {
    if (!(error instanceof SafeFetchError)) throw error;
    const message =
      error.reason === 'forbidden_address'
        ? `The webhook URL must reach a public address: ${error.message}`
        : error.reason === 'network'
          ? `The webhook URL's host cannot be resolved: ${error.message}`
          : `The webhook URL is not allowed: ${error.message}`;
    throw new ValidationError(message, [{ loc: ['body', 'url'], msg: message, type: 'url' }]);
  }
}
