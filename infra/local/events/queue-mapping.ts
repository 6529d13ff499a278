import { functionNamePrefix } from '../../function-name.ts';
import { localTemplateResolver } from '../iam/local-account.ts';
import type { Json, TemplateSet } from '../iam/template-resolver.ts';
import { LOCAL_STAGE } from '../local-names.ts';
import { compileFilterPattern, type FilterPattern } from './filter-rules.ts';

/**
 * The SQS queues of the synthesized templates (`AWS::SQS::Queue`) and the event source mappings
 * that read them (`AWS::Lambda::EventSourceMapping` whose source is a queue), with the settings
 * the local queues (local-queue.ts) behave by: visibility timeout, retention, redrive to a
 * dead-letter queue after maxReceiveCount receipts; batch size, partial batch responses.
 */
export interface QueueDefinition {
  /** `<stack>/<logical id>`. */
  id: string;
  arn: string;
  visibilityTimeoutSeconds: number;
  retentionSeconds: number;
  redrive: { deadLetterArn: string; maxReceiveCount: number } | undefined;
}

export interface QueueMapping {
  id: string;
  queueArn: string;
  /** The function's local name (without the stage's prefix). */
  functionName: string;
  batchSize: number;
  reportBatchItemFailures: boolean;
  /** Batches invoked at once at most (ScalingConfig.MaximumConcurrency, else the local default). */
  maximumConcurrency: number;
  filters: FilterPattern[];
}

/** SQS's defaults. */
const DEFAULT_VISIBILITY_TIMEOUT_SECONDS = 30;
const DEFAULT_RETENTION_SECONDS = 345_600;
/** Lambda's default batch size for a queue. */
const DEFAULT_BATCH_SIZE = 10;
/**
 * Lambda starts reading a queue with five batches at once and scales up from there; locally five
 * at most (functions share one worker per function anyway, lambda-runner.ts).
 */
export const LOCAL_QUEUE_CONCURRENCY = 5;

export function templateQueues(templates: TemplateSet): QueueDefinition[] {
  const resolver = localTemplateResolver(templates);
  const queues: QueueDefinition[] = [];
  for (const [stack, template] of templates) {
    for (const [logicalId, resource] of Object.entries(template.Resources ?? {})) {
      if (resource.Type !== 'AWS::SQS::Queue') continue;
      const properties = resource.Properties ?? {};
      const id = `${stack}/${logicalId}`;
      if (properties.FifoQueue === true || properties.FifoQueue === 'true') {
        throw new Error(`${id}: a FIFO queue; the harness runs standard queues only`);
      }
      const redrive = properties.RedrivePolicy as
        | { deadLetterTargetArn?: Json; maxReceiveCount?: Json }
        | undefined;
      queues.push({
        id,
        arn: resolver.attribute(stack, logicalId, 'Arn'),
        visibilityTimeoutSeconds: Number(properties.VisibilityTimeout ?? DEFAULT_VISIBILITY_TIMEOUT_SECONDS),
        retentionSeconds: Number(properties.MessageRetentionPeriod ?? DEFAULT_RETENTION_SECONDS),
        redrive:
          redrive?.deadLetterTargetArn === undefined
            ? undefined
            : {
                deadLetterArn: String(resolver.resolve(stack, redrive.deadLetterTargetArn)),
                maxReceiveCount: Number(redrive.maxReceiveCount),
              },
      });
    }
  }
  return queues;
}

/** Every event source mapping whose source is an SQS queue. */
export function queueMappings(templates: TemplateSet): QueueMapping[] {
  const resolver = localTemplateResolver(templates);
  const prefix = functionNamePrefix(LOCAL_STAGE);
  const mappings: QueueMapping[] = [];
  for (const [stack, template] of templates) {
    for (const [logicalId, resource] of Object.entries(template.Resources ?? {})) {
      if (resource.Type !== 'AWS::Lambda::EventSourceMapping') continue;
      const properties = resource.Properties ?? {};
      let source: string;
      try {
        source = String(resolver.resolve(stack, properties.EventSourceArn ?? null));
      } catch {
        continue; // not a queue of the templates (a stream, resolved elsewhere: stream-mapping.ts)
      }
      if (!/^arn:[^:]+:sqs:/.test(source)) continue;
      if (properties.Enabled === false || properties.Enabled === 'false') continue;
      const id = `${stack}/${logicalId}`;
      const named = String(resolver.resolve(stack, properties.FunctionName));
      const functionName = (
        named.includes(':function:') ? (named.split(':function:')[1] ?? '') : named
      ).split(':')[0] as string;
      if (!functionName.startsWith(prefix))
        throw new Error(`${id}: ${functionName} is not a function of the stage`);
      const window = Number(properties.MaximumBatchingWindowInSeconds ?? 0);
      if (window > 0) {
        throw new Error(
          `${id}: MaximumBatchingWindowInSeconds ${window}; the harness invokes at once (0) only`,
        );
      }
      mappings.push({
        id,
        queueArn: source,
        functionName: functionName.slice(prefix.length),
        batchSize: Number(properties.BatchSize ?? DEFAULT_BATCH_SIZE),
        reportBatchItemFailures: ((properties.FunctionResponseTypes ?? []) as string[]).includes(
          'ReportBatchItemFailures',
        ),
        maximumConcurrency: Math.min(
          LOCAL_QUEUE_CONCURRENCY,
          Number(
            (properties.ScalingConfig as { MaximumConcurrency?: Json } | undefined)?.MaximumConcurrency ??
              LOCAL_QUEUE_CONCURRENCY,
          ),
        ),
        filters: ((properties.FilterCriteria?.Filters ?? []) as { Pattern: Json }[]).map((filter) =>
          compileFilterPattern(
            typeof filter.Pattern === 'string'
              ? filter.Pattern
              : String(resolver.resolve(stack, filter.Pattern)),
          ),
        ),
      });
    }
  }
  return mappings;
}
