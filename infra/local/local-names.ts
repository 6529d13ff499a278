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
