import type { DenialReason } from './evaluate.ts';
import type { IamRequest } from './iam-request.ts';

/**
 * The HTTP answer AWS gives a call its IAM evaluation refuses, per service and protocol, so that
 * the SDK, handed it in place of the network's, throws exactly the error it throws in AWS (its
 * service exception class, name, message and `$metadata.httpStatusCode`), and the function
 * answers what it would answer there:
 *
 * - DynamoDB, Secrets Manager, Cognito, EventBridge (JSON protocols): 400 `AccessDeniedException`,
 *   the message `User: <session> is not authorized to perform: <action> on resource: <resource>
 *   because no identity-based policy allows the <action> action` (or `with an explicit deny in …`);
 *   Secrets Manager names the secret as the call did.
 * - S3 (REST XML): 403 `AccessDenied`, the same message with the resource in double quotes; a HEAD
 *   answer has no body.
 * - SES v1 (Query protocol): 403 `AccessDenied`, its older message: ``User `<session>' is not
 *   authorized to perform `<action>' on resource `<resource>'``.
 */

export interface AwsHttpAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: Uint8Array;
}

export interface Refusal {
  clientName: string;
  commandName: string;
  /** The role session the function runs as. */
  principalArn: string;
  request: IamRequest;
  reason: DenialReason;
  requestId: string;
}

function why(reason: DenialReason, action: string): string {
  switch (reason) {
    case 'explicit-deny-in-identity-policy':
      return 'with an explicit deny in an identity-based policy';
    case 'explicit-deny-in-resource-policy':
      return 'with an explicit deny in a resource-based policy';
    case 'no-resource-policy-allows':
      return `because no resource-based policy allows the ${action} action`;
    case 'no-identity-policy-allows':
      return `because no identity-based policy allows the ${action} action`;
  }
}

/** The message IAM-style services give: who, which action, on what, and why not. */
export function accessDeniedMessage(refusal: Refusal, quoteResource = false): string {
  const { action } = refusal.request;
  const named = refusal.request.namedInMessage ?? refusal.request.resource;
  const resource = quoteResource ? `"${named}"` : named;
  return `User: ${refusal.principalArn} is not authorized to perform: ${action} on resource: ${resource} ${why(refusal.reason, action)}`;
}

const xmlEscape = (text: string) =>
  text.replace(
    /[&<>"']/g,
    (char) => `&${{ '&': 'amp', '<': 'lt', '>': 'gt', '"': 'quot', "'": 'apos' }[char]};`,
  );

const utf8 = (text: string) => new TextEncoder().encode(text);

function jsonAnswer(refusal: Refusal, contentType: string, type: string): AwsHttpAnswer {
  return {
    statusCode: 400,
    headers: { 'content-type': contentType, 'x-amzn-requestid': refusal.requestId },
    body: utf8(JSON.stringify({ __type: type, Message: accessDeniedMessage(refusal) })),
  };
}

function s3Answer(refusal: Refusal): AwsHttpAnswer {
  const headers = { 'x-amz-request-id': refusal.requestId, 'x-amz-id-2': refusal.requestId };
  // S3 answers a HEAD with the status alone.
  if (refusal.commandName === 'HeadObjectCommand')
    return { statusCode: 403, headers, body: new Uint8Array() };
  const xml =
    '<?xml version="1.0" encoding="UTF-8"?>\n' +
    `<Error><Code>AccessDenied</Code><Message>${xmlEscape(accessDeniedMessage(refusal, true))}</Message>` +
    `<RequestId>${refusal.requestId}</RequestId><HostId>${refusal.requestId}</HostId></Error>`;
  return { statusCode: 403, headers: { ...headers, 'content-type': 'application/xml' }, body: utf8(xml) };
}

function sesAnswer(refusal: Refusal): AwsHttpAnswer {
  const { action, resource } = refusal.request;
  const message = `User \`${refusal.principalArn}' is not authorized to perform \`${action}' on resource \`${resource}'`;
  const xml =
    '<ErrorResponse xmlns="http://ses.amazonaws.com/doc/2010-12-01/">\n' +
    `  <Error>\n    <Type>Sender</Type>\n    <Code>AccessDenied</Code>\n    <Message>${xmlEscape(message)}</Message>\n  </Error>\n` +
    `  <RequestId>${refusal.requestId}</RequestId>\n</ErrorResponse>\n`;
  return {
    statusCode: 403,
    headers: { 'content-type': 'text/xml', 'x-amzn-requestid': refusal.requestId },
    body: utf8(xml),
  };
}

const ANSWERS: Record<string, (refusal: Refusal) => AwsHttpAnswer> = {
  DynamoDBClient: (refusal) =>
    jsonAnswer(refusal, 'application/x-amz-json-1.0', 'com.amazon.coral.service#AccessDeniedException'),
  SecretsManagerClient: (refusal) =>
    jsonAnswer(refusal, 'application/x-amz-json-1.1', 'AccessDeniedException'),
  CognitoIdentityProviderClient: (refusal) =>
    jsonAnswer(refusal, 'application/x-amz-json-1.1', 'AccessDeniedException'),
  EventBridgeClient: (refusal) => jsonAnswer(refusal, 'application/x-amz-json-1.1', 'AccessDeniedException'),
  S3Client: s3Answer,
  SESClient: sesAnswer,
};

/** AWS's answer to the refused call; throws for a client no answer is known for. */
export function accessDeniedAnswer(refusal: Refusal): AwsHttpAnswer {
  const answer = ANSWERS[refusal.clientName];
  if (!answer) throw new Error(`No AccessDenied answer is known for ${refusal.clientName}`);
  return answer(refusal);
}
