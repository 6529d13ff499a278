import { Stack } from 'aws-cdk-lib';
import type { Construct } from 'constructs';
import type { ServiceContext } from './service-context.ts';

/**
 * The Cognito domain of managed login (`consoleSignIn: hosted`), known in any stack without
 * reading the user pool's: the prefix is a setting or derived from the stage and account, and the
 * host is `<prefix>.auth.<region>.amazoncognito.com`, as Cognito names it. The stateful stack
 * creates the domain; the console pages' stacks name it in their CSP and config.json.
 */
export const cognitoDomainPrefix = (scope: Construct, context: ServiceContext): string =>
  context.cognitoDomainPrefix ?? defaultCognitoDomainPrefix(context.stage, Stack.of(scope).account);

/** The prefix when the settings name none: unique to the stage and the account. */
export const defaultCognitoDomainPrefix = (stage: string, account: string): string =>
  `business-platform-${stage}-${account}`;

/** The managed login's base URL (also its origin): `/oauth2/authorize`, `/oauth2/token`, `/logout` live under it. */
export const cognitoSignInUrl = (scope: Construct, context: ServiceContext): string =>
  `https://${cognitoDomainPrefix(scope, context)}.auth.${Stack.of(scope).region}.amazoncognito.com`;

/** The scopes the console's app client allows and the pages ask for. */
export const CONSOLE_SIGN_IN_SCOPES = ['openid', 'email', 'profile'] as const;
