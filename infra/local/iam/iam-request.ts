/**
 * One authorization AWS makes for one SDK call: the IAM action, the ARN of the resource it acts
 * on, and the service's condition keys as the Service Authorization Reference names them. A call
 * can need several (a transaction authorizes each item on its table; a copy reads one object and
 * writes another; an e-mail is authorized on its identity and on its configuration set).
 */
export interface IamRequest {
  action: string;
  resource: string;
  /** Service-specific condition keys; the global ones (aws:…) are added where it is evaluated. */
  context: Record<string, string | string[]>;
  /**
   * The resource as AWS's AccessDenied message names it, when that is not the ARN: Secrets
   * Manager names the secret as the request did (a name or an ARN).
   */
  namedInMessage?: string;
}

/**
 * One SDK call as a client middleware sees it: `context.clientName` (`DynamoDBClient`),
 * `context.commandName` (`PutItemCommand`; a lib-dynamodb command arrives as the DynamoDB command
 * it wraps) and `args.input`. DynamoDB attribute values may be plain (the document client's input
 * before its marshalling middleware) or marshalled (`{S: '…'}`); both are read.
 */
export interface SdkCall {
  clientName: string;
  commandName: string;
  input: unknown;
  /** A presigned URL is being built for the call (s3-request-presigner), not the call sent. */
  presigned?: boolean;
}

/** The account the local stack stands for: every ARN of a call and of a policy is built in it. */
export interface LocalAccount {
  partition: string;
  accountId: string;
  region: string;
}

/** What turns the names a call uses into the ARNs the policies use. */
export interface CallScope {
  account: LocalAccount;
  /** The partition key attribute of a table, or of one of its indexes (dynamodb:LeadingKeys). */
  partitionKeyOf(table: string, index?: string): string | undefined;
  /** A secret's ARN from the id a call gives (an ARN as it is; a name, in the account). */
  secretArn(secretId: string): string;
  /** The SES identities verified in the account (addresses and domains) a send is authorized on. */
  sesIdentities: readonly string[];
}

/** A call no mapping knows: it is refused, never let through unchecked. */
export class UnmappedCallError extends Error {
  override name = 'UnmappedCallError';
  constructor(call: Pick<SdkCall, 'clientName' | 'commandName'>) {
    super(
      `No IAM mapping for ${call.clientName} ${call.commandName}: add it to infra/local/iam/ before a function sends it`,
    );
  }
}

/** A call whose input lacks what AWS would authorize it on (AWS itself would refuse it as invalid). */
export class MalformedCallError extends Error {
  override name = 'MalformedCallError';
}

/** `arn:<partition>:<service>:<region>:<account>:<resource>`. */
export const regionalArn = (account: LocalAccount, service: string, resource: string): string =>
  `arn:${account.partition}:${service}:${account.region}:${account.accountId}:${resource}`;

/** The input as a record, or a MalformedCallError naming the call. */
export function inputRecord(call: SdkCall): Record<string, unknown> {
  if (call.input === null || typeof call.input !== 'object') {
    throw new MalformedCallError(`${call.clientName} ${call.commandName} has no input`);
  }
  return call.input as Record<string, unknown>;
}

/** A required string member of the input. */
export function requiredString(call: SdkCall, input: Record<string, unknown>, member: string): string {
  const value = input[member];
  if (typeof value !== 'string' || value === '') {
    throw new MalformedCallError(`${call.clientName} ${call.commandName} has no ${member}`);
  }
  return value;
}

/** Drop the keys whose value is undefined or an empty list. */
export function definedKeys(
  entries: Record<string, string | string[] | undefined>,
): Record<string, string | string[]> {
  const result: Record<string, string | string[]> = {};
  for (const [key, value] of Object.entries(entries)) {
    if (value === undefined || (Array.isArray(value) && value.length === 0)) continue;
    result[key] = value;
  }
  return result;
}
