import type { HttpResponse } from '../lambda-runner.ts';
import { escapeHtml } from './html.ts';
import type { BusEvent } from './local-bus.ts';
import { WEBHOOKS_PAGE_PATH } from './webhooks-page.ts';

/**
 * The dev console's page of the latest events the local bus received (newest first), and the
 * same list as JSON for tests and scripts. Served by the harness under the console pages' path
 * (dev-console.ts) with their headers; the page has no script (it reloads itself every few
 * seconds, and has a link to reload now).
 */
export const EVENTS_PAGE_PATH = '/console/dev/events';
export const EVENTS_JSON_PATH = '/console/dev/events.json';

const RELOAD_SECONDS = 5;

export function eventsJson(events: readonly BusEvent[]): HttpResponse {
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json', 'cache-control': 'no-store' },
    body: Buffer.from(JSON.stringify({ events })),
  };
}

export function eventsPage(events: readonly BusEvent[], headers: Record<string, string>): HttpResponse {
  const rows = events.map((event) => {
    const { detail } = event;
    const cell = (value: unknown) =>
      `<td>${escapeHtml(value === null || value === undefined ? '' : String(value))}</td>`;
    const record = detail.record_id === null || detail.record_id === undefined ? '' : `/${detail.record_id}`;
    return [
      '<tr>',
      cell(event.received_at),
      cell(event.detail_type),
      cell(detail.business_id),
      cell(`${detail.entity ?? ''}${record}`),
      cell(detail.version),
      cell(Array.isArray(detail.changed_fields) ? detail.changed_fields.join(', ') : ''),
      cell(detail.id),
      `<td><details><summary>detail</summary><pre>${escapeHtml(JSON.stringify(detail, null, 2))}</pre></details></td>`,
      '</tr>',
    ].join('');
  });
  const html = `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta http-equiv="refresh" content="${RELOAD_SECONDS}">
<title>Events (local bus)</title></head>
<body>
<h1>Events on the local bus</h1>
<p>The latest ${events.length} event(s) the publisher put on the local EventBridge bus, newest first; this page reloads every ${RELOAD_SECONDS} s (<a href="${EVENTS_PAGE_PATH}">reload now</a>, <a href="${EVENTS_JSON_PATH}">as JSON</a>). Their webhook deliveries: <a href="${WEBHOOKS_PAGE_PATH}">${WEBHOOKS_PAGE_PATH}</a>.</p>
${
  rows.length === 0
    ? '<p>No events yet: change a record (the API docs page, or a curl line from the terminal) and reload.</p>'
    : `<table>
<thead><tr><th>received</th><th>type</th><th>business</th><th>entity/record</th><th>version</th><th>changed fields</th><th>event id</th><th></th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody>
</table>`
}
</body>
</html>`;
  return {
    statusCode: 200,
    headers: { ...headers, 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' },
    body: Buffer.from(html),
  };
}
