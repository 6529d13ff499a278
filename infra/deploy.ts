/**
 * `npm run deploy -- --stage NAME [-- cdk deploy options]`: deploys every stack of one stage with
 * the settings of its checked-in file, `stages/<stage>.json`. Before bundling anything it prints
 * the effective settings and checks credentials, region and the account (infra/deploy-preflight.ts).
 * The stage is required: without it CDK would deploy `dev`, whose settings are placeholders.
 * Settings given as `-c key=value` are refused: CDK would not remember them, and the next deploy
 * without them would undo what they made.
 */
import { spawn, spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative } from 'node:path';
import { ACMClient } from '@aws-sdk/client-acm';
import { LambdaClient } from '@aws-sdk/client-lambda';
import { SESv2Client } from '@aws-sdk/client-sesv2';
import { SSMClient } from '@aws-sdk/client-ssm';
import { App } from 'aws-cdk-lib';
import { parseCommandLine, usageError } from './command-line.ts';
import { CLOUDFRONT_CERTIFICATE_REGION } from './console-pages-settings.ts';
import { accountFindings, settingFindings } from './deploy-preflight.ts';
import { ROOT_DIR } from './local/paths.ts';
import { ContextError, readServiceContext, type ServiceContext } from './service-context.ts';
import { readStageSettings, STAGE_NAME, type StageSettingKey, stageSettingsFile } from './stage-settings.ts';

const fail = (message: string): never => {
  console.error(`error: ${message}`);
  process.exit(1);
};

const COMMAND = {
  name: 'npm run deploy',
  usage: `
Usage: npm run deploy -- --stage NAME [-- cdk deploy options…]

Deploys every stack of the stage NAME with the settings of stages/NAME.json: prints the effective
settings, checks the credentials, the region and the account, then runs cdk deploy --all for the
stage. Options after a second -- go to cdk deploy as they are.

  --stage NAME   the stage to deploy (required; dev is the local example with placeholder domains)
  -h, --help     this text

Settings are not taken on the command line (-c key=value): put them in stages/NAME.json, which
the next deploy repeats.

Example:
  npm run deploy -- --stage prod -- --require-approval never
`,
};

const { values, tokens } = parseCommandLine(COMMAND, {
  options: {
    stage: { type: 'string' },
    context: { type: 'string', short: 'c', multiple: true },
  },
  allowPositionals: true,
  tokens: true,
});
// What follows `--` is cdk deploy's, as it was given; nothing else is a positional.
const terminator = tokens.find((token) => token.kind === 'option-terminator')?.index;
const stray = tokens.find(
  (token) => token.kind === 'positional' && (terminator === undefined || token.index < terminator),
);
if (stray?.kind === 'positional')
  usageError(COMMAND, `unexpected argument '${stray.value}' (cdk deploy's options go after --)`);
const rest = terminator === undefined ? [] : process.argv.slice(2).slice(terminator + 1);
if (typeof values.stage !== 'string') usageError(COMMAND, '--stage is required, e.g. --stage prod');
const stage = values.stage;
if (!STAGE_NAME.test(stage)) usageError(COMMAND, `--stage "${stage}" must be a stage name such as prod`);
if (values.context) {
  usageError(
    COMMAND,
    `put settings in ${relative(ROOT_DIR, stageSettingsFile(stage))} instead of -c (CDK does not keep command-line context, so the next deploy would undo them)`,
  );
}
const file = stageSettingsFile(stage);
if (stage !== 'dev' && !existsSync(file)) {
  fail(
    `no settings for stage ${stage}: create ${relative(ROOT_DIR, file)} (docs/deploy.md lists every setting)`,
  );
}
let context: ServiceContext;
try {
  const { context: cdkJson } = JSON.parse(readFileSync(join(ROOT_DIR, 'cdk.json'), 'utf8'));
  context = readServiceContext(new App({ context: { ...cdkJson, stage } }));
} catch (error) {
  if (error instanceof ContextError) fail(error.message);
  throw error;
}

// The settings file's keys behind each effective setting, where their names differ.
const SETTINGS_BEHIND: Partial<Record<keyof ServiceContext, readonly StageSettingKey[]>> = {
  throttle: ['throttleRate', 'throttleBurst'],
  tokenThrottle: ['tokenThrottleRate', 'tokenThrottleBurst'],
  strictThrottle: ['strictThrottleRate', 'strictThrottleBurst'],
  externalIssuer: ['issuer', 'issuerAudience'],
  assistantDomain: ['domainName', 'certificateArn'],
  consoleApiDomain: ['consoleApiDomainName', 'consoleCertificateArn'],
  hostedZone: ['hostedZoneId', 'hostedZoneName'],
  publicUrl: ['publicUrl', 'domainName'],
  consolePages: ['consolePages', 'consoleDomainName', 'consolePagesCertificateArn'],
  consoleUrl: ['consoleUrl', 'consoleDomainName'],
};
// Settings whose default is known only once deployed.
const UNSET_MEANS: Partial<Record<keyof ServiceContext, string>> = {
  consoleUrl: "(the console pages' CloudFront URL)",
  mcpAllowedOrigins: "(the console pages' CloudFront URL)",
};
const stored = readStageSettings(stage);
console.log(`Stage ${stage}: settings from ${relative(ROOT_DIR, file)}, defaults for the rest`);
for (const [key, value] of Object.entries(context) as [keyof ServiceContext, unknown][]) {
  if (key === 'stage') continue;
  const shown =
    typeof value === 'object' && value !== null
      ? JSON.stringify(value)
      : String(value ?? UNSET_MEANS[key] ?? '(unset)');
  const fromFile = (SETTINGS_BEHIND[key] ?? [key as StageSettingKey]).some((setting) => setting in stored);
  console.log(`  ${key.padEnd(26)} ${shown}${fromFile ? '' : '   (default)'}`);
}
// The file is what the next deploy repeats: one that differs from what is committed is not yet.
const uncommitted = spawnSync('git', ['status', '--porcelain', '--', file], {
  cwd: ROOT_DIR,
  encoding: 'utf8',
});
if (uncommitted.status === 0 && uncommitted.stdout.trim() !== '') {
  console.log(
    `warning: ${relative(ROOT_DIR, file)} has changes that are not committed: commit it, so that the next deploy, from any clone, repeats this one`,
  );
}
for (const warning of settingFindings(context).warnings) console.log(`warning: ${warning}`);

const lambda = new LambdaClient({});
try {
  const credentials = await lambda.config.credentials();
  if (!credentials.accessKeyId) throw new Error('empty credentials');
} catch {
  fail(
    'no AWS credentials found: set AWS_PROFILE (after `aws configure` or `aws sso login`) or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, then npm run deploy again',
  );
}
const region = await lambda.config
  .region()
  .catch(() =>
    fail('no AWS region: set AWS_REGION (or a region in your AWS profile), then npm run deploy again'),
  );
const findings = await accountFindings(
  {
    lambda,
    ssm: new SSMClient({}),
    ses: new SESv2Client({}),
    acm: new ACMClient({}),
    cloudFrontAcm: new ACMClient({ region: CLOUDFRONT_CERTIFICATE_REGION }),
  },
  context,
  region,
).catch((error: Error) => fail(`could not check the account: ${error.message}`));
for (const warning of findings.warnings) console.log(`warning: ${warning}`);
if (findings.refusals.length > 0) fail(findings.refusals.join('; '));

const cdk = join(dirname(createRequire(import.meta.url).resolve('aws-cdk/package.json')), 'bin/cdk');
const child = spawn(process.execPath, [cdk, 'deploy', '--all', '-c', `stage=${stage}`, ...rest], {
  cwd: ROOT_DIR,
  stdio: 'inherit',
});
const [code] = (await once(child, 'exit')) as [number | null];
process.exit(code ?? 1);
