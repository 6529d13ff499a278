import { cognitoRequests } from './cognito-requests.ts';
import { dynamodbRequests } from './dynamodb-requests.ts';
import { eventBridgeRequests } from './eventbridge-requests.ts';
import { type CallScope, type IamRequest, type SdkCall, UnmappedCallError } from './iam-request.ts';
import { s3Requests } from './s3-requests.ts';
import { secretsManagerRequests } from './secrets-manager-requests.ts';
import { sesRequests } from './ses-requests.ts';

/** Each client the functions use, by the name its middleware context carries. */
const BY_CLIENT: Record<string, (call: SdkCall, scope: CallScope) => IamRequest[] | undefined> = {
  DynamoDBClient: dynamodbRequests,
  S3Client: s3Requests,
  SESClient: sesRequests,
  SecretsManagerClient: secretsManagerRequests,
  CognitoIdentityProviderClient: cognitoRequests,
  EventBridgeClient: eventBridgeRequests,
};

/**
 * The IAM authorizations AWS makes for one SDK call (docs/harness.md, 'IAM enforcement'): the
 * action(s), resource ARN(s) and condition keys, as the Service Authorization Reference defines
 * them. A client or command without a mapping throws UnmappedCallError: a call nobody mapped is
 * refused, never let through unchecked.
 */
export function iamRequestsFor(call: SdkCall, scope: CallScope): IamRequest[] {
  const requests = BY_CLIENT[call.clientName]?.(call, scope);
  if (requests === undefined) throw new UnmappedCallError(call);
  return requests;
}
