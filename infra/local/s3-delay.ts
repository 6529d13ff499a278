import type { S3Client } from '@aws-sdk/client-s3';
import { networkDelayMs } from './dynamodb-usage.ts';

/*
 * Local-only instrument, beside the DynamoDB counter (dynamodb-usage.ts): the harness's function
 * workers attach this SDK middleware to the photo bucket's S3 client, so that a request's in-region
 * delay reaches its S3 calls as it reaches its DynamoDB calls; the deployed functions never load it.
 */

const delayed = new WeakSet<S3Client>();

/** Make every S3 request `client` sends in a delayed unit of work wait that delay first (once per client). */
export function attachS3NetworkDelay(client: S3Client): void {
  if (delayed.has(client)) return;
  delayed.add(client);
  client.middlewareStack.add(
    (next) => async (args) => {
      const delayMs = networkDelayMs();
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      return next(args);
    },
    // The step nearest the wire: it runs for each request sent, and never for a presigned URL,
    // whose signer stops the request before this step since signing sends nothing.
    { step: 'deserialize', name: 's3NetworkDelay' },
  );
}
