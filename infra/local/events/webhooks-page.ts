import type { HttpResponse } from '../lambda-runner.ts';
import { escapeHtml } from './html.ts';
import type { LocalEvents } from './local-events.ts';

/**
 * The dev console's page of webhook deliveries: the latest attempts of every subscription, newest
 * first, read from the delivery log in the table (lib/webhooks/deliveries.ts) by the harness
 * itself, with the subscriptions, the local queues and the schedule beside them; the same as JSON
 * for tests and scripts. And `POST /console/dev/schedules/run` `{"function": "SweepWebhooks"}`:
 * fire the schedule rules that invoke that function now, instead of waiting for the minute.
 */
export const WEBHOOKS_PAGE_PATH = '/console/dev/webhooks';
export const WEBHOOKS_JSON_PATH = '/console/dev/webhooks.json';
export const SCHEDULE_RUN_PATH = '/console/dev/schedules/run';

/** Attempts shown at most, and read per subscription at most. */
const SHOWN_ATTEMPTS = 100;
const RELOAD_SECONDS = 5;

export interface WebhooksView {
  deliveries: (Record<string, unknown> & { webhook_id: string; url: string; attempted_at: string })[];
  subscriptions: Record<string, unknown>[];
  queues: ReturnType<LocalEvents['state']>['queues'];
  schedules: ReturnType<LocalEvents['state']>['schedules'];
}

/** Read what the page shows (the harness's environment points lib/ at DynamoDB Local). */
export async function webhooksView(events: LocalEvents | undefined): Promise<WebhooksView> {
  const { listAllSubscriptions } = await import('#lib/webhooks/store.ts');
  const { listDeliveries } = await import('#lib/webhooks/deliveries.ts');
  const { webhookView } = await import('#lib/webhooks/subscription.ts');
  const subscriptions = await listAllSubscriptions();
  const deliveries = (
    await Promise.all(
      subscriptions.map(async (subscription) =>
        (
          await listDeliveries(subscription.webhook_id, { limit: SHOWN_ATTEMPTS })
        ).deliveries.map((attempt) => ({
          ...attempt,
          url: subscription.url,
        })),
      ),
    )
  )
    .flat()
    // uuidv7 ids: in the order they were made.
    .sort((a, b) => (a.delivery_id < b.delivery_id ? 1 : a.delivery_id > b.delivery_id ? -1 : 0))
    .slice(0, SHOWN_ATTEMPTS);
  const state = events?.state() ?? { queues: [], schedules: [] };
  return {
    deliveries,
    subscriptions: subscriptions.map((subscription) => ({
      ...webhookView(subscription),
      key_id: subscription.key_id,
      failures: subscription.failures,
      cursor_seq: subscription.cursor_seq,
    })),
    queues: state.queues,
    schedules: state.schedules,
  };
}

export async function webhooksJson(events: LocalEvents | undefined): Promise<HttpResponse> {
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    body: Buffer.from(JSON.stringify(await webhooksView(events))),
  };
}

export async function webhooksPage(
  events: LocalEvents | undefined,
  headers: Record<string, string>,
): Promise<HttpResponse> {
  const view = await webhooksView(events);
  const cell = (value: unknown) =>
    `<td>${escapeHtml(value === null || value === undefined ? '' : String(value))}</td>`;
  const table = (columns: string[], rows: string[]) =>
    `<table>\n<thead><tr>${columns.map((column) => `<th>${escapeHtml(column)}</th>`).join('')}</tr></thead>\n<tbody>\n${rows.join('\n')}\n</tbody>\n</table>`;
  const attempts = view.deliveries.map((attempt) =>
    [
      '<tr>',
      cell(attempt.attempted_at),
      cell(attempt.url),
      cell(attempt.event_type),
      cell(attempt.event_id),
      cell(attempt.trigger),
      cell(attempt.outcome),
      cell(attempt.status_code),
      cell(attempt.error),
      cell(attempt.duration_ms),
      cell(attempt.next_retry_at),
      '</tr>',
    ].join(''),
  );
  const subscriptions = view.subscriptions.map((subscription) =>
    [
      '<tr>',
      cell(subscription.id),
      cell(subscription.url),
      cell(Array.isArray(subscription.types) ? subscription.types.join(', ') : 'all'),
      cell(subscription.status),
      cell(subscription.failures),
      cell(subscription.next_attempt_at),
      cell(subscription.last_error),
      '</tr>',
    ].join(''),
  );
  const queues = view.queues.map((queue) =>
    ['<tr>', cell(queue.id), cell(queue.visible), cell(queue.in_flight), '</tr>'].join(''),
  );
  const schedules = view.schedules.map((schedule) =>
    [
      '<tr>',
      cell(schedule.rule),
      cell(schedule.expression),
      cell(schedule.functions.join(', ')),
      cell(schedule.last_run?.at),
      cell(
        schedule.last_run
          ? schedule.last_run.outcome.returned
            ? 'returned'
            : schedule.last_run.outcome.message
          : '',
      ),
      cell(schedule.next_run_at),
      '</tr>',
    ].join(''),
  );
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta http-equiv="refresh" content="${RELOAD_SECONDS}">
<title>Webhook deliveries (local)</title></head>
<body>
<h1>Webhook deliveries</h1>
<p>The latest ${view.deliveries.length} delivery attempt(s) of every subscription, newest first, from the delivery log in the table; this page reloads every ${RELOAD_SECONDS} s (<a href="${WEBHOOKS_PAGE_PATH}">reload now</a>, <a href="${WEBHOOKS_JSON_PATH}">as JSON</a>, <a href="/console/dev/events">the events on the bus</a>).</p>
${
  attempts.length === 0
    ? '<p>No attempts yet: register a receiver (the curl line in the terminal) and change a record.</p>'
    : table(
        [
          'attempted',
          'url',
          'event type',
          'event id',
          'trigger',
          'outcome',
          'status',
          'error',
          'ms',
          'next retry',
        ],
        attempts,
      )
}
<h2>Subscriptions</h2>
${subscriptions.length === 0 ? '<p>None.</p>' : table(['id', 'url', 'types', 'status', 'failures', 'next attempt', 'last error'], subscriptions)}
<h2>Local queues</h2>
${table(['queue', 'visible', 'in flight'], queues)}
<h2>Schedules</h2>
<p>Run one now: <code>curl -s -X POST -H 'content-type: application/json' -d '{"function":"SweepWebhooks"}' &lt;base URL&gt;${SCHEDULE_RUN_PATH}</code></p>
${table(['rule', 'expression', 'functions', 'last run', 'outcome', 'next run'], schedules)}
</body>
</html>`;
  return {
    statusCode: 200,
    headers: { ...headers, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
    body: Buffer.from(html),
  };
}

/**
 * `POST /console/dev/schedules/run` with `{"function": "<local name>"}` (content-type JSON, so a
 * page of another origin cannot send it without a preflight the harness does not allow).
 */
export async function runScheduleRequest(
  request: { method: string; contentType: string | undefined; body: Buffer },
  events: LocalEvents | undefined,
): Promise<HttpResponse> {
  const answer = (statusCode: number, body: object): HttpResponse => ({
    statusCode,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    body: Buffer.from(JSON.stringify(body)),
  });
  if (request.method !== 'POST')
    return { ...answer(405, { message: 'Use POST' }), headers: { allow: 'POST' } };
  if (!/^application\/json\b/i.test(request.contentType ?? '')) {
    return answer(400, {
      message: 'Send JSON: content-type application/json, body {"function": "SweepWebhooks"}',
    });
  }
  let name: unknown;
  try {
    name = (JSON.parse(request.body.toString('utf8')) as { function?: unknown } | null)?.function;
  } catch {
    return answer(400, { message: 'The body is not valid JSON' });
  }
  if (typeof name !== 'string' || name === '') {
    return answer(400, { message: 'Send {"function": "<the function\'s name, e.g. SweepWebhooks>"}' });
  }
  const runs = (await events?.runSchedule(name)) ?? [];
  if (runs.length === 0) return answer(404, { message: `No schedule rule of the templates invokes ${name}` });
  return answer(200, { runs });
}
