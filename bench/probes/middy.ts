import middy from '@middy/core';
import httpEventNormalizer from '@middy/http-event-normalizer';
import httpHeaderNormalizer from '@middy/http-header-normalizer';
import httpJsonBodyParser from '@middy/http-json-body-parser';

/** Probe: middy and the three HTTP middlewares every function's chain uses (lib/http/pipeline.ts). */
const chain = middy()
  .use(httpHeaderNormalizer())
  .use(httpEventNormalizer())
  .use(httpJsonBodyParser())
  .handler(async () => ({ statusCode: 200 }));
export const handler = async () => ({ statusCode: 200, body: typeof chain });
