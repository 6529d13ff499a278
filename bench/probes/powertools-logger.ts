import { Logger } from '@aws-lambda-powertools/logger';
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';

/** Probe: the Powertools logger and its middleware, as lib/observability/logger.ts and the pipeline set them up. */
const logger = new Logger({ serviceName: 'probe' });
const middleware = injectLambdaContext(logger, { resetKeys: true });
export const handler = async () => ({ statusCode: 200, body: typeof middleware.before });
