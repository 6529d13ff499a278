import { inject } from 'vitest';
import { LOCAL_AUDIENCE, LOCAL_ISSUER } from '../../infra/local/dev-issuer.ts';
import { LOCAL_AWS } from '../../infra/local/emulators.ts';

// Point lib/ (used by tests to arrange tenants) at the harness's emulators before any test imports it.
const harness = inject('harness');
Object.assign(process.env, {
  AWS_REGION: LOCAL_AWS.region,
  AWS_ACCESS_KEY_ID: LOCAL_AWS.credentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: LOCAL_AWS.credentials.secretAccessKey,
  TABLE_NAME: harness.tableName,
  DYNAMODB_ENDPOINT: harness.endpoints.dynamodb,
  S3_ENDPOINT: harness.endpoints.s3,
  SES_ENDPOINT: harness.endpoints.ses,
  JWT_ISSUER: LOCAL_ISSUER,
  JWT_AUDIENCE: LOCAL_AUDIENCE,
  POWERTOOLS_LOG_LEVEL: 'ERROR',
});
