import { existsSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import * as z from 'zod';
import { ROOT_DIR } from './local/paths.ts';

/**
 * Each stage's settings live in a checked-in file, `stages/<stage>.json`, so that a deployment
 * repeats the last one: CDK does not remember context given on the command line, and a setting
 * left off the next `cdk deploy` (say `alarmEmail`) would silently undo what it made. The CDK app
 * reads the file of the stage it builds; context on the command line still wins, for one-off
 * synths, and `npm run deploy` refuses it (infra/deploy.ts).
 */
export const STAGE_SETTING_KEYS = [
  'sesSender',
  'sesIdentity',
  'sesIdentityMode',
  'consoleUrl',
  'consoleOrigins',
  'consoleSignIn',
  'cognitoDomainPrefix',
  'cognitoTier',
  'cognitoEmail',
  'issuer',
  'issuerAudience',
  'publicUrl',
  'publicUrlServedExternally',
  'domainName',
  'certificateArn',
  'consoleApiDomainName',
  'consoleCertificateArn',
  'hostedZoneId',
  'hostedZoneName',
  'consolePages',
  'consoleDomainName',
  'consolePagesCertificateArn',
  'photosPublicBaseUrl',
  'mcpAllowedOrigins',
  'retainData',
  'throttleRate',
  'throttleBurst',
  'tokenThrottleRate',
  'tokenThrottleBurst',
  'strictThrottleRate',
  'strictThrottleBurst',
  'alarmEmail',
  'bootstrapAdminEmail',
] as const;

export type StageSettingKey = (typeof STAGE_SETTING_KEYS)[number];

export const STAGES_DIR = join(ROOT_DIR, 'stages');

/** A stage name: it becomes part of stack names, SSM paths and the mail configuration set. */
export const STAGE_NAME = /^[a-z][a-z0-9-]{0,19}$/;

export const stageSettingsFile = (stage: string, dir = STAGES_DIR) => join(dir, `${stage}.json`);

const settingValue = z.union([z.string(), z.number(), z.boolean()]);
const settingsFileSchema = z.strictObject(
  Object.fromEntries(STAGE_SETTING_KEYS.map((key) => [key, settingValue.optional()])) as Record<
    StageSettingKey,
    z.ZodOptional<typeof settingValue>
  >,
);

/** A settings file that cannot be used: printed as one line, like a bad context value. */
export class StageSettingsError extends Error {}

/**
 * The settings the stage's file holds (as strings, the way CDK context arrives), or none when
 * the stage has no file. Unknown keys, values of the wrong type and bad JSON are refused.
 */
export function readStageSettings(stage: string, dir = STAGES_DIR): Partial<Record<StageSettingKey, string>> {
  const file = stageSettingsFile(stage, dir);
  if (!existsSync(file)) return {};
  const name = relative(ROOT_DIR, file);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new StageSettingsError(`${name} is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = settingsFileSchema.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) =>
      issue.code === 'unrecognized_keys'
        ? `unknown setting${issue.keys.length > 1 ? 's' : ''} ${issue.keys.join(', ')} (known: ${STAGE_SETTING_KEYS.join(', ')})`
        : `${issue.path.join('.') || 'the file'}: ${issue.message}`,
    );
    throw new StageSettingsError(`${name}: ${problems.join('; ')}`);
  }
  return Object.fromEntries(
    Object.entries(parsed.data)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => [key, String(value)]),
  );
}
