// One Lambda "container" of the local harness: a worker thread that loads one function's handler
// and runs its invocations (see lambda-runner.ts). Plain JavaScript so that it can register the
// TypeScript loader before it imports the handler, whatever started the harness.
import { AsyncLocalStorage } from 'node:async_hooks';
import { parentPort, workerData } from 'node:worker_threads';
import { register } from 'tsx/esm/api';

register();
const { attachUsageCounter, countDynamoUsage } = await import('./dynamodb-usage.ts');
const { installIamEnforcement } = await import('./iam/sdk-enforcement.ts');
const { localCallScope } = await import('./iam/local-account.ts');

// IAM enforcement, before anything of the function loads: each SDK call is asked about in the
// harness (lambda-runner.ts answers `ask` messages), where the role's policies are evaluated.
const asked = new Map();
let askCount = 0;
const iamClock = new AsyncLocalStorage();
const enforcement = installIamEnforcement({
  scope: localCallScope(workerData.callScope),
  clock: () => iamClock.getStore(),
  // Allowed decisions are reused here (no message) for calls that agree on what they depend on.
  decisionKeys: workerData.decisionKeys,
  ask: (question) =>
    new Promise((settle) => {
      askCount += 1;
      asked.set(askCount, settle);
      parentPort?.postMessage({ ask: { id: askCount, question } });
    }),
});

let handler;
parentPort?.on('message', (message) => {
  if (message.answer !== undefined) {
    asked.get(message.answer.id)?.(message.answer.outcome);
    asked.delete(message.answer.id);
    return;
  }
  void invoke(message);
});

// The init phase, as Lambda runs it before the first invocation (outside the function's timeout).
try {
  const module = await import(workerData.handlerUrl);
  if (typeof module.handler !== 'function')
    throw new Error(`${workerData.handlerFile} does not export a handler`);
  handler = module.handler;
  // The function's own DynamoDB client (one module instance per worker) gets the harness's
  // counter here; the deployed function carries no such middleware.
  const { dynamoClient } = await import('../../lib/db/client.ts');
  attachUsageCounter(dynamoClient);
  // A function granted the photo bucket gets the same in-region delay on its S3 calls, and its
  // client is checked from the start: a presigned URL is built without a send.
  if (workerData.photoBucket) {
    const { attachS3NetworkDelay } = await import('./s3-delay.ts');
    const { s3 } = await import('../../lib/storage/photo-bucket.ts');
    attachS3NetworkDelay(s3);
    enforcement.attach(s3);
  }
  parentPort?.postMessage({ ready: true, iamAllowedHere: enforcement.takeAllowedHere() });
} catch (error) {
  parentPort?.postMessage({
    initError: error instanceof Error ? (error.stack ?? error.message) : String(error),
  });
}

async function invoke({ id, event, context }) {
  const deadline = Date.now() + context.remainingMs;
  const lambdaContext = {
    ...context,
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
  const clock = { ms: 0 };
  try {
    // The DynamoDB calls of this invocation, counted in this worker where the SDK client lives.
    // A request with x-local-network-delay-ms (the bench) has each DynamoDB and S3 call wait that
    // long first, as over the region's network; at most a second.
    const delayMs = Math.min(1000, Number(event.headers?.['x-local-network-delay-ms']) || 0);
    const { result, usage } = await iamClock.run(clock, () =>
      countDynamoUsage(() => handler(event, lambdaContext), { delayMs }),
    );
    parentPort?.postMessage({
      id,
      result: result === undefined ? null : result,
      usage,
      iamMs: clock.ms,
      iamAllowedHere: enforcement.takeAllowedHere(),
    });
  } catch (error) {
    parentPort?.postMessage({
      id,
      error: error instanceof Error ? (error.stack ?? error.message) : String(error),
      iamMs: clock.ms,
      iamAllowedHere: enforcement.takeAllowedHere(),
    });
  }
}
