/**
 * The names the local stack gives what a deployment names itself: the emulators' table and bucket,
 * and the sender its mail goes from. The harness creates them; the local synth of the app
 * (infra/local/iam/local-synth.ts) is read with them, so a policy's ARNs name what the calls name.
 */
export const LOCAL_TABLE_NAME = 'business-platform-local';
export const LOCAL_PHOTOS_BUCKET = 'business-platform-photos-local';
export const LOCAL_SES_SENDER = 'no-reply@business-platform.local';
/** The stage the local stack stands for: its functions are named `bp-local-<operation>`. */
export const LOCAL_STAGE = 'local';

/**
 * The region and credentials every local SDK client uses: s3rver accepts only its fixed S3RVER key
 * pair; DynamoDB Local (with -sharedDb) and aws-ses-v2-local accept any, so one pair serves all
 * three. Kept here, away from the emulators' code, so that a function's worker reads them without
 * loading the emulators' SDK clients.
 */
export const LOCAL_AWS = {
  region: 'us-east-1',
  credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
};
