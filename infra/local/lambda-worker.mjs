// One Lambda "container" of the local harness: a worker thread that loads one function's handler
// and runs its invocations (see lambda-runner.ts). Plain JavaScript so that it can register the
// TypeScript loader before it imports the handler, whatever started the harness.
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { attachUsageCounter, countDynamoUsage } = await import('./dynamodb-usage.ts');

// The init phase, as Lambda runs it before the first invocation (outside the function's timeout).
let handler;
try {
  const module = await import(workerData.handlerUrl);
  if (typeof module.handler !== 'function')
    throw new Error(`${workerData.handlerFile} does not export a handler`);
  handler = module.handler;
  // The function's own DynamoDB client (one module instance per worker) gets the harness's
  // counter here; the deployed function carries no such middleware.
  const { dynamoClient } = await import('../../lib/db/client.ts');
  attachUsageCounter(dynamoClient);
  // A function granted the photo bucket gets the same in-region delay on its S3 calls.
  if (workerData.photoBucket) {
    const { attachS3NetworkDelay } = await import('./s3-delay.ts');
    const { s3 } = await import('../../lib/storage/photo-bucket.ts');
    attachS3NetworkDelay(s3);
  }
  parentPort?.postMessage({ ready: true });
} catch (error) {
  parentPort?.postMessage({
    initError: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
}

parentPort?.on('message', async ({ id, event, context }) => {
  const deadline = Date.now() + context.remainingMs;
  const lambdaContext = {
    ...context,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
  try {
    // The DynamoDB calls of this invocation, counted in this worker where the SDK client lives.
    // A request with x-local-network-delay-ms (the bench) has each DynamoDB and S3 call wait that
    // long first, as over the region's network; at most a second.
    const delayMs = Math.min(1000, Number(event.headers?.['x-local-network-delay-ms']) || 0);
    const { result, usage } = await countDynamoUsage(() => handler(event, lambdaContext), { delayMs });
    parentPort?.postMessage({ id, result: result === undefined ? null : result, usage });
  } catch (error) {
    parentPort?.postMessage({
      id,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
    });
  }
});
