/**
 * Runs before `npm run deploy` bundles anything: are there AWS credentials (and a region) for cdk
 * to deploy with? Uses the SDK's own default chain (env, profile, SSO, container, instance), so it
 * finds what cdk would find; without them, one line saying what to set, in seconds, not minutes.
 */
import { S3Client } from '@aws-sdk/client-s3';

const client = new S3Client({});
try {
  const credentials = await client.config.credentials();
  if (!credentials.accessKeyId) throw new Error('empty credentials');
} catch {
  console.error(
    'error: no AWS credentials found: set AWS_PROFILE (after `aws configure` or `aws sso login`) or AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, then npm run deploy again',
  );
  process.exit(1);
}
try {
  await client.config.region();
} catch {
  console.error(
    'error: no AWS region: set AWS_REGION (or a region in your AWS profile), then npm run deploy again',
  );
  process.exit(1);
}
