import { localConsoleUrl } from './dev-console.ts';
import { REVIEW_HOST_PATH } from './dev-review-host.ts';
import { EVENTS_PAGE_PATH } from './events/events-page.ts';
import { WEBHOOKS_PAGE_PATH } from './events/webhooks-page.ts';
import type { HttpResponse } from './lambda-runner.ts';

/**
 * What the base URL itself answers locally (`GET /`): where everything `npm start` serves is, as a
 * short JSON index, instead of a 404 to whoever opens the printed URL first.
 */
export function baseIndex(baseUrl: string): HttpResponse {
  const index = {
    service: 'Business Platform Service (local)',
    docs: `${baseUrl}/docs`,
    openapi: `${baseUrl}/openapi.json`,
    console: `${localConsoleUrl(baseUrl)}/`,
    review_view: `${baseUrl}${REVIEW_HOST_PATH}`,
    events: `${baseUrl}${EVENTS_PAGE_PATH}`,
    webhooks: `${baseUrl}${WEBHOOKS_PAGE_PATH}`,
    health: `${baseUrl}/health`,
    credentials: '.local/credentials.json (the demo tokens and the agent key)',
  };
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(`${JSON.stringify(index, null, 2)}\n`),
  };
}
