import type { EventEnvelope, ScheduleRule } from './event-rules.ts';
import { scheduledEvent } from './event-rules.ts';
import type { BatchDelivery } from './stream-poller.ts';

/**
 * EventBridge's schedule rules, locally: every `rate(N …)` rule of the templates fires every N
 * minutes (hours, days) while the stack runs, the first time one period after the start (as a new
 * rule does), and invokes its function targets asynchronously with a scheduled event. A run that
 * fails is retried as Lambda retries an asynchronous invocation (twice, one then two minutes
 * later). runNow() fires a rule at once, for tests and the dev console.
 */

export interface ScheduleRun {
  rule: string;
  functionName: string;
  /** When it was fired (ISO 8601). */
  at: string;
  outcome: BatchDelivery;
}

export interface LocalScheduleOptions {
  rules: readonly ScheduleRule[];
  /** Invoke a function (by local name) with the scheduled event; undefined: the harness cannot run it. */
  invoke(functionName: string, event: EventEnvelope): Promise<BatchDelivery> | undefined;
  /** Waits before Lambda's retries of a failed asynchronous invocation. */
  retryDelaysMs?: readonly number[];
  log?(line: string): void;
}

/** Lambda's retries of an asynchronous invocation that failed: 1 minute, then 2 more. */
export const ASYNC_RETRY_DELAYS_MS = [60_000, 120_000] as const;

/** What the dev console shows of a rule. */
export interface ScheduleState {
  rule: string;
  expression: string;
  functions: string[];
  next_run_at: string | null;
  last_run: ScheduleRun | null;
}

export class LocalSchedule {
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly inFlight = new Set<Promise<unknown>>();
  private readonly nextAt = new Map<string, number>();
  private readonly lastRun = new Map<string, ScheduleRun>();
  private readonly log: (line: string) => void;
  private stopped = false;

  constructor(private readonly options: LocalScheduleOptions) {
    this.log = options.log ?? ((line) => console.error(line));
  }

  start(): void {
    for (const rule of this.options.rules) this.plan(rule, Date.now() + rule.everyMs);
  }

  /** Fire every rule that targets this function (every rule, without one) now; resolves to the first attempts. */
  async runNow(functionName?: string): Promise<ScheduleRun[]> {
    const rules = this.options.rules.filter(
      (rule) =>
        functionName === undefined ||
        rule.targets.some((target) => target.kind === 'lambda' && target.functionName === functionName),
    );
    return (await Promise.all(rules.map((rule) => this.fire(rule)))).flat();
  }

  state(): ScheduleState[] {
    return this.options.rules.map((rule) => {
      const next = this.nextAt.get(rule.id);
      return {
        rule: rule.id,
        expression: rule.expression,
        functions: rule.targets.flatMap((target) => (target.kind === 'lambda' ? [target.functionName] : [])),
        next_run_at: next === undefined ? null : new Date(next).toISOString(),
        last_run: this.lastRun.get(rule.id) ?? null,
      };
    });
  }

  /** No more runs; resolves once the runs under way have ended (stop the functions meanwhile). */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    await Promise.allSettled([...this.inFlight]);
  }

  /** The rule's next firing, at a fixed rate from the start (a slow run does not shift the schedule). */
  private plan(rule: ScheduleRule, at: number): void {
    if (this.stopped) return;
    this.nextAt.set(rule.id, at);
    this.after(Math.max(0, at - Date.now()), () => {
      this.plan(rule, at + rule.everyMs);
      void this.fire(rule);
    });
  }

  private fire(rule: ScheduleRule): Promise<ScheduleRun[]> {
    const event = scheduledEvent(rule);
    const runs = rule.targets.flatMap((target) => {
      if (target.kind !== 'lambda') return [];
      const first = this.attempt(rule, target.functionName, event, 0);
      return first ? [first] : [];
    });
    return Promise.all(runs);
  }

  private attempt(
    rule: ScheduleRule,
    functionName: string,
    event: EventEnvelope,
    retry: number,
  ): Promise<ScheduleRun> | undefined {
    if (this.stopped) return undefined;
    const invoked = this.options.invoke(functionName, event);
    if (!invoked) return undefined;
    const at = new Date().toISOString();
    const run = invoked.then((outcome) => {
      const done: ScheduleRun = { rule: rule.id, functionName, at, outcome };
      this.lastRun.set(rule.id, done);
      const delays = this.options.retryDelaysMs ?? ASYNC_RETRY_DELAYS_MS;
      const delay = delays[retry];
      if (!outcome.returned && !this.stopped) {
        this.log(
          `[schedule] ${functionName} (${rule.expression}) failed: ${outcome.message}${delay === undefined ? '; not retried again' : `; retried in ${delay / 1000} s`}`,
        );
        if (delay !== undefined)
          this.after(delay, () => void this.attempt(rule, functionName, event, retry + 1));
      }
      return done;
    });
    this.inFlight.add(run);
    void run.finally(() => this.inFlight.delete(run));
    return run;
  }

  private after(ms: number, action: () => void): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.stopped) action();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }
}
