import type { App } from 'aws-cdk-lib';
import { consoleOrigins } from '#lib/http/cors.ts';
import { emailAddress } from '#lib/validation/formats.ts';
import * as z from '#lib/validation/zod.ts';
import { type ApiDomain, type HostedZoneSetting, readApiDomainSettings } from './api-domain-settings.ts';
import { type ConsolePagesSettings, readConsolePagesSettings } from './console-pages-settings.ts';
import { ContextError } from './context-error.ts';
import { readStageSettings, STAGE_NAME, type StageSettingKey, StageSettingsError } from './stage-settings.ts';

/**
 * Every deployment setting, read once from the stage's settings file (`stages/<stage>.json`) and
 * CDK context (cdk.json or -c key=value, which wins), and checked before any stack is built.
 * docs/deploy.md lists them.
 */
export interface ServiceContext {
  stage: string;
  sesSender: string;
  /** The SES identity that sends: the sender's domain or address (context `sesIdentity`). */
  sesIdentity: string;
  /** 'create' the identity in the stateful stack, or 'import' one verified already. */
  sesIdentityMode: 'create' | 'import';
  /**
   * The console's base URL (setting `consoleUrl`). Undefined only with the console pages on their
   * CloudFront name: then it is the distribution's URL, known at deployment (infra/console-site.ts).
   */
  consoleUrl: string | undefined;
  /** The origins set or known at synth; the deployed pages' origin is added to them (infra/console-site.ts). */
  consoleOrigins: string[];
  /** The console pages deployed on S3 and CloudFront (setting `consolePages`), or none. */
  consolePages: ConsolePagesSettings | undefined;
  /** 'hosted' = Cognito's authorization-code flow with a domain; 'srp' = the console signs in by SRP only. */
  consoleSignIn: 'hosted' | 'srp';
  cognitoDomainPrefix: string | undefined;
  /** The user pool's feature plan: 'essentials', or 'plus' with threat protection enforced. */
  cognitoTier: 'essentials' | 'plus';
  /** Who sends the user pool's own mail (codes, resets): 'cognito' (its shared sender) or 'ses' (ours). */
  cognitoEmail: 'cognito' | 'ses';
  externalIssuer: { issuer: string; audience: string } | undefined;
  /** The assistant API's custom domain (settings `domainName`, `certificateArn`). */
  assistantDomain: ApiDomain | undefined;
  /** The console API's custom domain (`consoleApiDomainName`, `consoleCertificateArn` or `certificateArn`). */
  consoleApiDomain: ApiDomain | undefined;
  /** The Route 53 zone the stacks write the domains' alias records into (`hostedZoneId`, `hostedZoneName`). */
  hostedZone: HostedZoneSetting | undefined;
  /** The OAuth issuer when it is not the execute-api URL: `https://<domainName>` unless set (`publicUrl`). */
  publicUrl: string | undefined;
  /** A proxy or CDN of the customer's serves `publicUrl`, so it need not be the assistant API's domain. */
  publicUrlServedExternally: boolean;
  photosPublicBaseUrl: string | undefined;
  /** Undefined: the console's origin, known at deployment only (infra/console-site.ts). */
  mcpAllowedOrigins: string[] | undefined;
  retainData: boolean;
  throttle: { rateLimit: number; burstLimit: number };
  /** Routes every connected assistant calls all along: token, revoke, discovery, JWKS (route `throttle: 'token'`). */
  tokenThrottle: { rateLimit: number; burstLimit: number };
  /** Unauthenticated routes called once per connection or never: register, authorize, /openapi.json. */
  strictThrottle: { rateLimit: number; burstLimit: number };
  /** E-mail address the alarms notify (SNS subscription); none when unset. */
  alarmEmail: string | undefined;
  /** The address that may sign up before any platform admin exists, to become the first one. */
  bootstrapAdminEmail: string | undefined;
}

export { ContextError };

const PLACEHOLDER_DOMAIN = /(^|\.)example\.com$/i;

export function readServiceContext(app: App): ServiceContext {
  const given = (key: string): string | undefined => {
    const value: unknown = app.node.tryGetContext(key);
    return value === undefined || value === null || value === '' ? undefined : String(value);
  };
  const stage = given('stage') ?? 'dev';
  if (!STAGE_NAME.test(stage)) {
    throw new ContextError(
      `stage "${stage}" must start with a letter and hold at most 20 lower-case letters, digits and dashes`,
    );
  }
  let stored: Partial<Record<StageSettingKey, string>>;
  try {
    stored = readStageSettings(stage);
  } catch (error) {
    if (error instanceof StageSettingsError) throw new ContextError(error.message);
    throw error;
  }
  const raw = (key: StageSettingKey): string | undefined => given(key) ?? stored[key];
  const flag = (key: StageSettingKey, fallback: boolean): boolean => {
    const value = raw(key);
    if (value === undefined) return fallback;
    if (value !== 'true' && value !== 'false') throw new ContextError(`context ${key} must be true or false`);
    return value === 'true';
  };
  const positive = (key: StageSettingKey, fallback: number): number => {
    const value = raw(key);
    if (value === undefined) return fallback;
    const number = Number(value);
    if (!Number.isFinite(number) || number <= 0)
      throw new ContextError(`context ${key} must be a positive number`);
    return number;
  };
  const oneOf = <T extends string>(key: StageSettingKey, values: readonly T[], fallback: T): T => {
    const value = raw(key) ?? fallback;
    if (!(values as readonly string[]).includes(value)) {
      throw new ContextError(`context ${key} must be one of ${values.join(', ')}`);
    }
    return value as T;
  };

  const sesSender = raw('sesSender') ?? 'no-reply@example.com';
  const consolePages = readConsolePagesSettings(raw, flag);
  // The deployed pages are the console unless another is named.
  const pagesUrl = consolePages?.domain ? `https://${consolePages.domain.domainName}` : undefined;
  const consoleUrl = (
    raw('consoleUrl') ?? (consolePages ? pagesUrl : 'https://console.example.com')
  )?.replace(/\/+$/, '');
  const senderDomain = sesSender.split('@')[1] ?? '';
  if (stage !== 'dev') {
    const placeholders = [
      PLACEHOLDER_DOMAIN.test(senderDomain) ? `sesSender (${sesSender})` : undefined,
      consoleUrl && PLACEHOLDER_DOMAIN.test(new URL(consoleUrl).hostname)
        ? `consoleUrl (${consoleUrl})`
        : undefined,
    ].filter(Boolean);
    if (placeholders.length > 0) {
      throw new ContextError(
        `stage "${stage}" still uses the example.com defaults for ${placeholders.join(' and ')}: set them in stages/${stage}.json`,
      );
    }
  }
  const issuer = raw('issuer');
  const issuerAudience = raw('issuerAudience');
  if (Boolean(issuer) !== Boolean(issuerAudience)) {
    throw new ContextError('context issuer and issuerAudience go together: set both or neither');
  }
  const consoleSignIn = oneOf('consoleSignIn', ['hosted', 'srp'] as const, 'hosted');
  if (consolePages && (consoleSignIn !== 'hosted' || issuer)) {
    throw new ContextError(
      issuer
        ? "context consolePages signs in through the service's Cognito user pool, but issuer names another: drop one of them"
        : 'context consolePages needs consoleSignIn hosted: the pages sign in with Cognito managed login (authorization code with PKCE), which srp turns off',
    );
  }
  let origins: string[];
  try {
    const setting = raw('consoleOrigins');
    origins =
      setting === undefined && consoleUrl === undefined ? [] : consoleOrigins(setting, consoleUrl ?? '');
  } catch (error) {
    throw new ContextError((error as Error).message);
  }
  const mcpAllowedOrigins = raw('mcpAllowedOrigins') ?? (consoleUrl && new URL(consoleUrl).origin);
  const bootstrapAdminEmail = raw('bootstrapAdminEmail')?.trim().toLowerCase();
  if (bootstrapAdminEmail !== undefined && !z.safeParse(emailAddress(), bootstrapAdminEmail).success) {
    throw new ContextError(
      `context bootstrapAdminEmail must be an e-mail address, not "${bootstrapAdminEmail}"`,
    );
  }
  const defaultRate = positive('throttleRate', 50);
  return {
    stage,
    sesSender,
    sesIdentity: raw('sesIdentity') ?? sesSender,
    sesIdentityMode: oneOf('sesIdentityMode', ['create', 'import'] as const, 'create'),
    consoleUrl,
    consoleOrigins: origins,
    consolePages,
    consoleSignIn,
    cognitoDomainPrefix: raw('cognitoDomainPrefix'),
    cognitoTier: oneOf('cognitoTier', ['essentials', 'plus'] as const, 'essentials'),
    cognitoEmail: oneOf('cognitoEmail', ['cognito', 'ses'] as const, 'cognito'),
    externalIssuer: issuer && issuerAudience ? { issuer, audience: issuerAudience } : undefined,
    // CDK's CLI tells the app the region env-agnostic stacks deploy to; an offline synth knows none.
    ...readApiDomainSettings(raw, flag, process.env.CDK_DEFAULT_REGION, consolePages?.domain?.domainName),
    photosPublicBaseUrl: raw('photosPublicBaseUrl'),
    // Browser pages that may call /mcp (DNS-rebinding protection): the console unless told otherwise.
    mcpAllowedOrigins: mcpAllowedOrigins
      ?.split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    // Data outlives the stack unless a throwaway deployment says otherwise.
    retainData: flag('retainData', true),
    throttle: { rateLimit: defaultRate, burstLimit: positive('throttleBurst', defaultRate * 2) },
    // Sized for every connected assistant at once (docs/decisions.md, 'Production on AWS'): one
    // caller must not fill the bucket all assistants share; per-caller limits live in the functions.
    tokenThrottle: {
      rateLimit: positive('tokenThrottleRate', 200),
      burstLimit: positive('tokenThrottleBurst', 100),
    },
    strictThrottle: {
      rateLimit: positive('strictThrottleRate', 5),
      burstLimit: positive('strictThrottleBurst', 10),
    },
    alarmEmail: raw('alarmEmail'),
    bootstrapAdminEmail,
  };
}
