import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { logger } from '#lib/observability/logger.ts';
import { deliverEvents } from '#lib/webhooks/dispatch.ts';

/**
 * Webhook deliveries for new events (docs/webhooks.md): the bus's rule puts every change event on
 * a queue whose event source mapping invokes this function with up to 10 of them. Each message is
 * the event as EventBridge sends it to a target, `detail` the change event. The subscriptions that
 * want them are woken and run (lib/webhooks/run.ts). A message is reported failed only when the
 * run could not be made (the table failed): the queue delivers it again, and after 5 receipts it
 * goes to the dead-letter queue. A delivery that fails is not a failed message: its retry is the
 * subscription's, from the feed.
 */
export async function handler(event: SQSEvent, context: Context): Promise<SQSBatchResponse> {
  const events: { business_id: string; type: string }[] = [];
  for (const record of event.Records) {
    const detail = parseDetail(record.body);
    if (detail) events.push(detail);
    else logger.error('webhook queue message is not a change event', { message_id: record.messageId });
  }
  try {
    await deliverEvents(events, { deadline: Date.now() + context.getRemainingTimeInMillis() });
    return { batchItemFailures: [] };
  } catch (error) {
    logger.error('webhook delivery run failed', { error: error as Error });
    return { batchItemFailures: event.Records.map((record) => ({ itemIdentifier: record.messageId })) };
  }
}

function parseDetail(body: string): { business_id: string; type: string } | undefined {
  try {
    const detail = (JSON.parse(body) as { detail?: { business_id?: unknown; type?: unknown } }).detail;
    if (typeof detail?.business_id === 'string' && typeof detail.type === 'string') {
      return { business_id: detail.business_id, type: detail.type };
    }
  } catch {
    // Not JSON: reported below.
  }
  return undefined;
}
