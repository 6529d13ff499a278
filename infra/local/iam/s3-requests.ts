import {
  type CallScope,
  definedKeys,
  type IamRequest,
  inputRecord,
  MalformedCallError,
  requiredString,
  type SdkCall,
} from './iam-request.ts';

/**
 * S3's authorizations, as its Service Authorization Reference defines them: object actions on
 * `arn:aws:s3:::<bucket>/<key>` (the key as stored, not URL-encoded), listing as s3:ListBucket on
 * the bucket's ARN. HeadObject is s3:GetObject; an object of a given version is the …Version
 * action; a copy reads its source (s3:GetObject) and writes its target (s3:PutObject); a put that
 * sets tags or an ACL needs s3:PutObjectTagging or s3:PutObjectAcl besides; a presigned GET is the
 * s3:GetObject of whoever signed it, with s3:authType REST-QUERY-STRING.
 */

type Input = Record<string, unknown>;

const bucketArn = (scope: CallScope, bucket: string) => `arn:${scope.account.partition}:s3:::${bucket}`;
const objectArn = (scope: CallScope, bucket: string, key: string) => `${bucketArn(scope, bucket)}/${key}`;

const text = (input: Input, member: string): string | undefined =>
  typeof input[member] === 'string' && input[member] !== '' ? (input[member] as string) : undefined;

/** Keys every signed S3 request carries: how it was signed, and whose bucket it reaches. */
const signedRequestKeys = (scope: CallScope, call: SdkCall) => ({
  's3:authType': call.presigned ? 'REST-QUERY-STRING' : 'REST-HEADER',
  's3:signatureversion': 'AWS4-HMAC-SHA256',
  's3:ResourceAccount': scope.account.accountId,
});

/** The tag keys of an `x-amz-tagging` value (`a=1&b=2`). */
const tagKeys = (tagging: string | undefined): string[] | undefined =>
  tagging === undefined ? undefined : [...new URLSearchParams(tagging).keys()];

const GRANTS = ['GrantFullControl', 'GrantRead', 'GrantReadACP', 'GrantWriteACP'] as const;
const setsAcl = (input: Input) =>
  text(input, 'ACL') !== undefined || GRANTS.some((grant) => text(input, grant));

/** s3:PutObject on the target, and what a tagging or an ACL header adds. */
function writeRequests(
  scope: CallScope,
  call: SdkCall,
  input: Input,
  extra: Record<string, string | undefined>,
) {
  const target = objectArn(scope, requiredString(call, input, 'Bucket'), requiredString(call, input, 'Key'));
  const put: IamRequest = {
    action: 's3:PutObject',
    resource: target,
    context: definedKeys({
      ...signedRequestKeys(scope, call),
      's3:x-amz-acl': text(input, 'ACL'),
      's3:x-amz-server-side-encryption': text(input, 'ServerSideEncryption'),
      's3:x-amz-server-side-encryption-aws-kms-key-id': text(input, 'SSEKMSKeyId'),
      's3:x-amz-storage-class': text(input, 'StorageClass'),
      's3:if-none-match': text(input, 'IfNoneMatch'),
      's3:if-match': text(input, 'IfMatch'),
      's3:RequestObjectTagKeys': tagKeys(text(input, 'Tagging')),
      ...extra,
    }),
  };
  const requests = [put];
  const context = definedKeys(signedRequestKeys(scope, call));
  if (text(input, 'Tagging') !== undefined) {
    requests.push({ action: 's3:PutObjectTagging', resource: target, context });
  }
  if (setsAcl(input)) requests.push({ action: 's3:PutObjectAcl', resource: target, context });
  return requests;
}

/** An object read or delete, or its version's. */
function objectRequest(scope: CallScope, call: SdkCall, input: Input, action: 'GetObject' | 'DeleteObject') {
  const bucket = requiredString(call, input, 'Bucket');
  const key = requiredString(call, input, 'Key');
  return {
    action: `s3:${action}${text(input, 'VersionId') ? 'Version' : ''}`,
    resource: objectArn(scope, bucket, key),
    context: definedKeys(signedRequestKeys(scope, call)),
  };
}

/** `bucket/key` or `/bucket/key`, URL-encoded, with an optional `?versionId=`. */
function copySource(call: SdkCall, input: Input): { bucket: string; key: string; versionId?: string } {
  const source = requiredString(call, input, 'CopySource');
  const [path = '', query] = source.replace(/^\//, '').split('?');
  const slash = path.indexOf('/');
  if (slash <= 0 || slash === path.length - 1) {
    throw new MalformedCallError(`${call.commandName} CopySource ${source} names no bucket and key`);
  }
  const versionId = query ? new URLSearchParams(query).get('versionId') : null;
  return {
    bucket: decodeURIComponent(path.slice(0, slash)),
    key: decodeURIComponent(path.slice(slash + 1)),
    ...(versionId ? { versionId } : {}),
  };
}

function listRequest(scope: CallScope, call: SdkCall, input: Input): IamRequest {
  const maxKeys = input.MaxKeys;
  return {
    action: 's3:ListBucket',
    resource: bucketArn(scope, requiredString(call, input, 'Bucket')),
    context: definedKeys({
      ...signedRequestKeys(scope, call),
      's3:prefix': typeof input.Prefix === 'string' ? input.Prefix : undefined,
      's3:delimiter': text(input, 'Delimiter'),
      's3:max-keys': typeof maxKeys === 'number' ? String(maxKeys) : undefined,
    }),
  };
}

const S3_COMMANDS: Record<string, (scope: CallScope, call: SdkCall, input: Input) => IamRequest[]> = {
  GetObjectCommand: (scope, call, input) => [objectRequest(scope, call, input, 'GetObject')],
  HeadObjectCommand: (scope, call, input) => [objectRequest(scope, call, input, 'GetObject')],
  DeleteObjectCommand: (scope, call, input) => [objectRequest(scope, call, input, 'DeleteObject')],
  DeleteObjectsCommand: (scope, call, input) => {
    const bucket = requiredString(call, input, 'Bucket');
    const objects = (input.Delete as { Objects?: { Key?: string; VersionId?: string }[] } | undefined)
      ?.Objects;
    if (!objects?.length) throw new MalformedCallError(`${call.commandName} names no objects`);
    return objects.map((object) =>
      objectRequest(
        scope,
        call,
        { Bucket: bucket, Key: object.Key, VersionId: object.VersionId },
        'DeleteObject',
      ),
    );
  },
  PutObjectCommand: (scope, call, input) => writeRequests(scope, call, input, {}),
  CopyObjectCommand: (scope, call, input) => {
    const source = copySource(call, input);
    const read = objectRequest(
      scope,
      call,
      { Bucket: source.bucket, Key: source.key, VersionId: source.versionId },
      'GetObject',
    );
    const writes = writeRequests(scope, call, input, {
      's3:x-amz-copy-source': requiredString(call, input, 'CopySource'),
      's3:x-amz-metadata-directive': text(input, 'MetadataDirective'),
    });
    return [read, ...writes];
  },
  ListObjectsV2Command: (scope, call, input) => [listRequest(scope, call, input)],
  ListObjectsCommand: (scope, call, input) => [listRequest(scope, call, input)],
};

/** The S3 commands mapped here. */
export const S3_COMMAND_NAMES = Object.keys(S3_COMMANDS);

/** The authorizations of one S3 call, or undefined for a command not mapped. */
export function s3Requests(call: SdkCall, scope: CallScope): IamRequest[] | undefined {
  return S3_COMMANDS[call.commandName]?.(scope, call, inputRecord(call));
}
