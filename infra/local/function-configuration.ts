import { functionNamePrefix } from '../function-name.ts';
import { localTemplateResolver } from './iam/local-account.ts';
import { type Json, type TemplateSet, UnresolvableValue } from './iam/template-resolver.ts';
import { LOCAL_STAGE } from './local-names.ts';

/**
 * Each function's configuration as the synthesized templates deploy it (docs/harness.md, 'One
 * configuration'): its environment, timeout and memory. The harness runs every function with
 * these, not with a list of its own, so a function whose template lacks a variable its code
 * requires fails locally as it fails deployed.
 *
 * A few variables name what has no local emulator; locally each is replaced by the harness's
 * stand-in (LOCAL_STAND_INS): a secret's id by its value (Secrets Manager is not emulated), the
 * user pool's issuer and keys by the dev issuer's, the public URLs by the harness's. Every function
 * also gets the emulators' endpoints, the local credentials and region, and LAMBDA_TASK_ROOT.
 */

export interface FunctionConfiguration {
  /** The template's variables, resolved in the local account (a stand-in's are replaced when it runs). */
  environment: Record<string, string>;
  timeoutSeconds: number;
  memoryMb: number;
  /** Template variables with no local value and no stand-in (left out, so reading one fails). */
  unresolved: string[];
}

/** Lambda's defaults, when a template leaves them out. */
const DEFAULT_TIMEOUT_SECONDS = 3;
const DEFAULT_MEMORY_MB = 128;

/**
 * Template variables the harness replaces, and with which of its own variables: a function whose
 * template has the first gets the others from the harness instead (none: the variable is left out).
 */
export const LOCAL_STAND_INS: Record<string, readonly string[]> = {
  // Secrets Manager has no local emulator: the values themselves, as the harness keeps them.
  INTERNAL_API_KEYS_SECRET_ID: ['INTERNAL_API_KEYS'],
  CURSOR_SECRET_ID: ['CURSOR_SECRET'],
  OAUTH_SIGNING_KEY_SECRET_ID: ['OAUTH_SIGNING_KEY_FILE'],
  // The dev issuer stands in for the user pool.
  JWT_ISSUER: ['JWT_ISSUER'],
  JWT_AUDIENCE: ['JWT_AUDIENCE'],
  JWT_KEY_SET: ['JWT_KEY_SET', 'JWKS_URL'],
  // No local user pool: the token function's account check is not made locally.
  CONSOLE_USER_POOL_ID: [],
  // The harness's URLs, known once it listens.
  CONSOLE_URL: ['CONSOLE_URL'],
  OAUTH_ISSUER: ['OAUTH_ISSUER'],
  MCP_ALLOWED_ORIGINS: ['MCP_ALLOWED_ORIGINS'],
};

/** What every local function gets from the harness besides its template's: where the emulators are. */
export const LOCAL_PLATFORM_VARIABLES = [
  'AWS_REGION',
  'AWS_ACCESS_KEY_ID',
  'AWS_SECRET_ACCESS_KEY',
  'LAMBDA_TASK_ROOT',
  'DYNAMODB_ENDPOINT',
  'S3_ENDPOINT',
  'SES_ENDPOINT',
  // The SDK's own endpoint variable for EventBridge: the harness's local bus.
  'AWS_ENDPOINT_URL_EVENTBRIDGE',
  // Set only by tests: the SSRF guard's loopback exceptions, and shorter access tokens.
  'SAFE_FETCH_ALLOW',
  // The harness's setting: webhooks may point at a loopback receiver over http.
  'WEBHOOKS_ALLOW_LOOPBACK_HTTP',
  'OAUTH_ACCESS_TOKEN_SECONDS',
] as const;

/** The configuration of every function of the local stage, by operation id or trigger name. */
export function functionConfigurations(templates: TemplateSet): Map<string, FunctionConfiguration> {
  const resolver = localTemplateResolver(templates);
  const prefix = functionNamePrefix(LOCAL_STAGE);
  const configurations = new Map<string, FunctionConfiguration>();
  for (const [stack, template] of templates) {
    for (const [logicalId, resource] of Object.entries(template.Resources ?? {})) {
      if (resource.Type !== 'AWS::Lambda::Function') continue;
      const functionName = resolver.physicalName(stack, logicalId);
      if (!functionName.startsWith(prefix)) continue;
      const properties = resource.Properties ?? {};
      const environment: Record<string, string> = {};
      const unresolved: string[] = [];
      const variables: Record<string, Json> = properties.Environment?.Variables ?? {};
      for (const [name, value] of Object.entries(variables)) {
        try {
          environment[name] = String(resolver.resolve(stack, value));
        } catch (error) {
          if (!(error instanceof UnresolvableValue)) throw error;
          // A stand-in's own value is never used locally; one that has none is no loss.
          if (name in LOCAL_STAND_INS) environment[name] = '';
          else unresolved.push(`${name}: ${error.message}`);
        }
      }
      configurations.set(functionName.slice(prefix.length), {
        environment,
        timeoutSeconds: Number(properties.Timeout ?? DEFAULT_TIMEOUT_SECONDS),
        memoryMb: Number(properties.MemorySize ?? DEFAULT_MEMORY_MB),
        unresolved,
      });
    }
  }
  return configurations;
}

/**
 * The environment a function runs with locally: its template's variables with the stand-ins
 * replaced from `local` (the harness's variables), and the platform's.
 */
export function localEnvironment(
  configuration: FunctionConfiguration,
  local: Readonly<Record<string, string | undefined>>,
): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const name of LOCAL_PLATFORM_VARIABLES) {
    const value = local[name];
    if (value !== undefined) environment[name] = value;
  }
  for (const [name, value] of Object.entries(configuration.environment)) {
    const standIns = LOCAL_STAND_INS[name];
    if (!standIns) {
      environment[name] = value;
      continue;
    }
    for (const standIn of standIns) {
      const replacement = local[standIn];
      if (replacement !== undefined) environment[standIn] = replacement;
    }
  }
  return environment;
}

/** The harness's variables among `environment` (a program that runs functions without a harness has them there). */
export function harnessValuesIn(
  environment: Readonly<Record<string, string | undefined>>,
): Record<string, string | undefined> {
  const names = [...LOCAL_PLATFORM_VARIABLES, ...Object.values(LOCAL_STAND_INS).flat()];
  return Object.fromEntries(
    names.filter((name) => environment[name] !== undefined).map((name) => [name, environment[name]]),
  );
}
