import type { TemplateSet } from '../iam/template-resolver.ts';
import { type FunctionDefinition, invokeFunction } from '../lambda-runner.ts';
import { type EventEnvelope, eventEnvelope, eventRules, matchingRules } from './event-rules.ts';
import type { BusEvent } from './local-bus.ts';
import { LocalQueue, QueueConsumer, type QueueState } from './local-queue.ts';
import { LocalSchedule, type ScheduleRun, type ScheduleState } from './local-schedule.ts';
import { queueMappings, templateQueues } from './queue-mapping.ts';
import type { BatchDelivery } from './stream-poller.ts';

/**
 * What EventBridge and SQS do with the templates' rules locally (docs/harness.md, 'Webhooks
 * locally'): each event the local bus receives goes to the targets of the rules on that bus whose
 * pattern it matches (a queue target gets the event's envelope as a message); every queue of the
 * templates is a local queue (local-queue.ts), read by the function of each event source mapping
 * on it; every rate(…) schedule rule invokes its function on time (local-schedule.ts).
 */

/** The handler file of each function a rule or a queue invokes (the templates do not name it). */
export const EVENT_FUNCTION_HANDLERS: Readonly<Record<string, string>> = {
  DeliverWebhooks: 'functions/webhooks/deliver-webhooks.ts',
  SweepWebhooks: 'functions/webhooks/sweep-webhooks.ts',
};

export interface LocalEvents {
  /** Give an event the bus received to the rules that match it. */
  route(event: BusEvent): void;
  queues: ReadonlyMap<string, LocalQueue>;
  consumers: readonly QueueConsumer[];
  schedule: LocalSchedule;
  /** Fire the schedule rules that invoke this function now (all of them, without one). */
  runSchedule(functionName?: string): Promise<ScheduleRun[]>;
  /** Resolves once no queue has a visible message or a batch under way. */
  idle(): Promise<void>;
  state(): { queues: QueueState[]; schedules: ScheduleState[] };
  /** Stop the timers and pollers; resolves once invocations under way have ended (stop the functions meanwhile). */
  stop(): Promise<void>;
}

export interface LocalEventsOptions {
  templates: TemplateSet;
  rootDir: string;
  /** Every queue's visibility timeout instead of its template's (tests). */
  visibilityTimeoutSeconds?: number;
  /** Function definitions by local name, instead of EVENT_FUNCTION_HANDLERS (a test's stand-in). */
  functions?: Readonly<Record<string, FunctionDefinition>>;
  /** Instead of the runner: a unit test's function, by local name. */
  invoke?(functionName: string, event: unknown): Promise<BatchDelivery>;
  /** Waits before Lambda's retries of a failed scheduled run (local-schedule.ts). */
  scheduleRetryDelaysMs?: readonly number[];
  /** Run no schedule on its own (runSchedule still fires them). */
  scheduleTimers?: boolean;
  log?(line: string): void;
}

export function startLocalEvents(options: LocalEventsOptions): LocalEvents {
  const log = options.log ?? ((line: string) => console.error(line));
  const rules = eventRules(options.templates);
  for (const skipped of rules.skipped) log(`[events] not run locally: ${skipped}`);

  const warned = new Set<string>();
  const definitionOf = (functionName: string): FunctionDefinition | undefined => {
    const handler = EVENT_FUNCTION_HANDLERS[functionName];
    const definition =
      options.functions?.[functionName] ?? (handler ? { operationId: functionName, handler } : undefined);
    if (!definition && !warned.has(functionName)) {
      warned.add(functionName);
      log(
        `[events] the templates invoke ${functionName}, whose handler file the harness does not know (infra/local/events/local-events.ts); it is not run locally`,
      );
    }
    return definition;
  };
  const invoke = (definition: FunctionDefinition, event: unknown): Promise<BatchDelivery> =>
    options.invoke?.(definition.operationId, event) ??
    invokeFunction(options.rootDir, definition, event).then((outcome) =>
      outcome.returned
        ? { returned: true, result: outcome.result }
        : { returned: false, message: outcome.message },
    );

  // Queues first (a dead-letter queue before the queue that redrives to it is not required).
  const queues = new Map<string, LocalQueue>();
  const definitions = templateQueues(options.templates);
  const make = (arn: string): LocalQueue | undefined => {
    const existing = queues.get(arn);
    if (existing) return existing;
    const definition = definitions.find((queue) => queue.arn === arn);
    if (!definition) return undefined;
    const deadLetterQueue = definition.redrive ? make(definition.redrive.deadLetterArn) : undefined;
    const queue = new LocalQueue(definition, {
      ...(options.visibilityTimeoutSeconds === undefined
        ? {}
        : { visibilityTimeoutSeconds: options.visibilityTimeoutSeconds }),
      ...(deadLetterQueue ? { deadLetterQueue } : {}),
      log,
    });
    queues.set(arn, queue);
    return queue;
  };
  for (const definition of definitions) make(definition.arn);

  const consumers: QueueConsumer[] = [];
  for (const mapping of queueMappings(options.templates)) {
    const queue = queues.get(mapping.queueArn);
    const definition = definitionOf(mapping.functionName);
    if (!queue || !definition) continue;
    consumers.push(new QueueConsumer({ queue, mapping, deliver: (event) => invoke(definition, event), log }));
  }

  const schedule = new LocalSchedule({
    rules: rules.scheduleRules,
    invoke: (functionName, event) => {
      const definition = definitionOf(functionName);
      return definition ? invoke(definition, event) : undefined;
    },
    ...(options.scheduleRetryDelaysMs ? { retryDelaysMs: options.scheduleRetryDelaysMs } : {}),
    log,
  });

  for (const rule of [...rules.busRules, ...rules.scheduleRules]) {
    for (const target of rule.targets) {
      if (target.kind === 'other' || (target.kind === 'sqs' && !queues.has(target.arn))) {
        log(`[events] ${rule.id}: its target ${target.arn} is not run locally`);
      }
    }
  }

  const route = (event: BusEvent) => {
    const envelope: EventEnvelope = eventEnvelope(event);
    for (const rule of matchingRules(rules.busRules, event.event_bus_name, envelope)) {
      for (const target of rule.targets) {
        if (target.kind === 'sqs') queues.get(target.arn)?.send(JSON.stringify(envelope));
        else if (target.kind === 'lambda') {
          const definition = definitionOf(target.functionName);
          if (definition) void invoke(definition, envelope);
        }
      }
    }
  };

  for (const consumer of consumers) consumer.start();
  if (options.scheduleTimers !== false) schedule.start();

  return {
    route,
    queues,
    consumers,
    schedule,
    runSchedule: (functionName) => schedule.runNow(functionName),
    idle: async () => {
      // A batch's end may put nothing new, but another consumer's may: ask until all are idle at once.
      for (;;) {
        await Promise.all(consumers.map((consumer) => consumer.idle()));
        if (consumers.every((consumer) => consumer.queue.visibleCount() === 0)) return;
      }
    },
    state: () => ({
      queues: [...queues.values()].map((queue) => queue.state()),
      schedules: schedule.state(),
    }),
    stop: async () => {
      await Promise.all([schedule.stop(), ...consumers.map((consumer) => consumer.stop())]);
    },
  };
}
