import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { describe, expect, it } from 'vitest';
import { iamRequestsFor } from '../../infra/local/iam/call-authorization.ts';
import { localCallScope } from '../../infra/local/iam/local-account.ts';
import { OFFLINE_CLIENT, referenceCheck, sentCall } from '../support/iam-calls.ts';

const scope = localCallScope({ sesIdentities: [] });
const BUCKET = 'business-platform-photos-local';
const SIGNED = {
  's3:authType': 'REST-HEADER',
  's3:signatureversion': 'AWS4-HMAC-SHA256',
  's3:ResourceAccount': '000000000000',
};

/** The photo bucket's client as the functions build it locally (path-style, as s3rver serves it). */
const s3 = () => new S3Client({ ...OFFLINE_CLIENT, forcePathStyle: true });

async function requestsOf(command: unknown) {
  const client = s3();
  return iamRequestsFor(await sentCall(client, command), scope);
}

describe('S3 calls as IAM requests', () => {
  it('names an object by bucket/key as stored, not URL-encoded', async () => {
    const [request] = await requestsOf(
      new GetObjectCommand({ Bucket: BUCKET, Key: 'businesses/b 1/photos/ü+p' }),
    );
    expect(request).toEqual({
      action: 's3:GetObject',
      resource: `arn:aws:s3:::${BUCKET}/businesses/b 1/photos/ü+p`,
      context: SIGNED,
    });
  });

  it('authorizes HeadObject as s3:GetObject, and a version as s3:GetObjectVersion', async () => {
    const [head] = await requestsOf(new HeadObjectCommand({ Bucket: BUCKET, Key: 'gallery/bakery/p' }));
    expect(head).toMatchObject({
      action: 's3:GetObject',
      resource: `arn:aws:s3:::${BUCKET}/gallery/bakery/p`,
    });
    const [version] = await requestsOf(new GetObjectCommand({ Bucket: BUCKET, Key: 'k', VersionId: 'v1' }));
    expect(version?.action).toBe('s3:GetObjectVersion');
    const [removal] = await requestsOf(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'k' }));
    expect(removal).toMatchObject({ action: 's3:DeleteObject', resource: `arn:aws:s3:::${BUCKET}/k` });
  });

  it('authorizes a presigned GET as the signer’s s3:GetObject by query string', async () => {
    const client = s3();
    const call = await sentCall(
      client,
      new GetObjectCommand({ Bucket: BUCKET, Key: 'businesses/b/photos/p' }),
      'initialize',
      (command) => getSignedUrl(client, command as GetObjectCommand, { expiresIn: 60 }),
    );
    expect(call.commandName).toBe('GetObjectCommand');
    const [request] = iamRequestsFor({ ...call, presigned: true }, scope);
    expect(request).toEqual({
      action: 's3:GetObject',
      resource: `arn:aws:s3:::${BUCKET}/businesses/b/photos/p`,
      context: { ...SIGNED, 's3:authType': 'REST-QUERY-STRING' },
    });
  });

  it('authorizes a put with its headers’ condition keys, and tagging and ACLs as their own actions', async () => {
    const requests = await requestsOf(
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: 'businesses/b/photos/p',
        Body: 'x',
        ServerSideEncryption: 'AES256',
        IfNoneMatch: '*',
        Tagging: 'kind=photo&owner=b',
        ACL: 'private',
      }),
    );
    const target = `arn:aws:s3:::${BUCKET}/businesses/b/photos/p`;
    expect(requests).toEqual([
      {
        action: 's3:PutObject',
        resource: target,
        context: {
          ...SIGNED,
          's3:x-amz-acl': 'private',
          's3:x-amz-server-side-encryption': 'AES256',
          's3:if-none-match': '*',
          's3:RequestObjectTagKeys': ['kind', 'owner'],
        },
      },
      { action: 's3:PutObjectTagging', resource: target, context: SIGNED },
      { action: 's3:PutObjectAcl', resource: target, context: SIGNED },
    ]);
  });

  it('authorizes a copy as a read of its source and a write of its target', async () => {
    const requests = await requestsOf(
      new CopyObjectCommand({
        Bucket: BUCKET,
        Key: 'gallery/x/p',
        CopySource: `${BUCKET}/businesses/b/photos/p%201?versionId=v7`,
      }),
    );
    expect(requests).toEqual([
      {
        action: 's3:GetObjectVersion',
        resource: `arn:aws:s3:::${BUCKET}/businesses/b/photos/p 1`,
        context: SIGNED,
      },
      {
        action: 's3:PutObject',
        resource: `arn:aws:s3:::${BUCKET}/gallery/x/p`,
        context: { ...SIGNED, 's3:x-amz-copy-source': `${BUCKET}/businesses/b/photos/p%201?versionId=v7` },
      },
    ]);
  });

  it('authorizes a listing as s3:ListBucket on the bucket, its prefix a condition key', async () => {
    const [request] = await requestsOf(
      new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'businesses/b/', Delimiter: '/', MaxKeys: 50 }),
    );
    expect(request).toEqual({
      action: 's3:ListBucket',
      resource: `arn:aws:s3:::${BUCKET}`,
      context: { ...SIGNED, 's3:prefix': 'businesses/b/', 's3:delimiter': '/', 's3:max-keys': '50' },
    });
  });

  it('gives only actions, ARNs and condition keys the Service Authorization Reference defines', async () => {
    const commands = [
      new GetObjectCommand({ Bucket: BUCKET, Key: 'k' }),
      new HeadObjectCommand({ Bucket: BUCKET, Key: 'k', VersionId: 'v' }),
      new DeleteObjectCommand({ Bucket: BUCKET, Key: 'k' }),
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: 'k',
        Body: 'x',
        ServerSideEncryption: 'AES256',
        IfNoneMatch: '*',
        StorageClass: 'STANDARD',
        Tagging: 'a=b',
        ACL: 'private',
      }),
      new CopyObjectCommand({
        Bucket: BUCKET,
        Key: 'k2',
        CopySource: `${BUCKET}/k`,
        MetadataDirective: 'COPY',
      }),
      new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'p/', Delimiter: '/', MaxKeys: 5 }),
    ];
    for (const command of commands) {
      for (const request of await requestsOf(command)) {
        expect(await referenceCheck(request), request.action).toMatchObject({
          decision: 'Allowed',
          resourceType: request.action === 's3:ListBucket' ? 'bucket' : 'object',
          ignoredKeys: [],
        });
      }
    }
  });
});
