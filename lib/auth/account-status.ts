import {
  AdminGetUserCommand,
  CognitoIdentityProviderClient,
  UserNotFoundException,
} from '@aws-sdk/client-cognito-identity-provider';
import { optionalEnv } from '#lib/config/env.ts';
import { sdkClientOptions } from '#lib/config/timeouts.ts';
import { ServiceUnavailableError } from '#lib/http/errors.ts';
import { logger } from '#lib/observability/logger.ts';
import { once } from '#lib/validation/lazy.ts';

/**
 * Whether a person's console account still exists and may sign in, as the stage's Cognito user
 * pool says: AdminGetUser with the account's `sub` as Username, which Cognito accepts in a pool
 * like ours, where people sign in with their e-mail as username and Cognito makes up the username
 * itself. The token endpoint asks before each refresh, so an account disabled or deleted in the
 * pool ends its assistants' grants at their next refresh (docs/decisions.md, 'OAuth for
 * assistants').
 *
 * CONSOLE_USER_POOL_ID names the pool: CDK gives it to the functions whose route row asks for the
 * account directory, and only on a stage with its own pool. Without it (another issuer; the local
 * harness, whose dev issuer has no directory) nothing is asked and every account is `unchecked`.
 *
 * - `enabled`: the pool has the account and it may sign in;
 * - `disabled`: the pool has it, disabled (only an explicit `Enabled: false`: ending a grant cannot
 *   be undone);
 * - `gone`: the pool has no such user (UserNotFoundException);
 * - `unchecked`: no directory to ask, or no account to ask about (a grant approved before grants
 *   recorded their person's account).
 *
 * Any other answer (throttling past the SDK's retries, an outage, a refusal) is a 503 with
 * `retry-after`: never taken as an allow, and never as a reason to end a grant.
 */
export type AccountStatus = 'enabled' | 'disabled' | 'gone' | 'unchecked';

const USER_POOL_ID = /^([\w-]+)_[0-9a-zA-Z]+$/;

function userPool(): { id: string; region: string } | undefined {
  const id = optionalEnv('CONSOLE_USER_POOL_ID');
  if (id === undefined) return undefined;
  const region = USER_POOL_ID.exec(id)?.[1];
  if (!region) throw new Error(`CONSOLE_USER_POOL_ID must be a user pool id (<region>_<id>), not ${id}`);
  return { id, region };
}

/** Read when the module loads: a malformed id fails the cold start, not a refresh. */
const pool = userPool();

/**
 * The pool's client, made on first use: only a refresh asks, so a cold start that exchanges a
 * code, or any start without a pool, never builds it. Its region is the pool's own.
 */
export const accountDirectory = once(() => {
  if (!pool) throw new Error('No account directory: CONSOLE_USER_POOL_ID is not set');
  return new CognitoIdentityProviderClient({ region: pool.region, ...sdkClientOptions('cognito') });
});

export async function accountStatus(subject: string | undefined): Promise<AccountStatus> {
  if (!pool || subject === undefined) return 'unchecked';
  try {
    const { Enabled } = await accountDirectory().send(
      new AdminGetUserCommand({ UserPoolId: pool.id, Username: subject }),
    );
    return Enabled === false ? 'disabled' : 'enabled';
  } catch (error) {
    if (error instanceof UserNotFoundException) return 'gone';
    // The error's name tells throttling or an outage from a refusal (a role without the grant).
    logger.warn('The user pool did not say whether an account is active', {
      error_name: error instanceof Error ? error.name : String(error),
    });
    throw new ServiceUnavailableError(
      "The person's account could not be checked; retry shortly",
      'account_directory',
      2,
    );
  }
}
