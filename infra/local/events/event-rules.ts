import { randomUUID } from 'node:crypto';
import { functionNamePrefix } from '../../function-name.ts';
import { LOCAL_ACCOUNT, localTemplateResolver } from '../iam/local-account.ts';
import type { Json, TemplateResolver, TemplateSet } from '../iam/template-resolver.ts';
import { LOCAL_STAGE } from '../local-names.ts';
import { compileFilterPattern, type FilterPattern, matchesPattern } from './filter-rules.ts';
import type { BusEvent } from './local-bus.ts';

/**
 * The EventBridge rules of the synthesized templates (`AWS::Events::Rule`), as the local bus and
 * the local scheduler apply them: a rule on a bus (EventBusName, EventPattern) sends each event it
 * matches to its targets as EventBridge sends an event to a target (the whole envelope, unless the
 * target transforms its input, which the harness refuses to imitate); a schedule rule
 * (`rate(…)`) invokes its targets with a scheduled event.
 *
 * Patterns are matched with the stream filters' matcher (filter-rules.ts): EventBridge patterns and
 * Lambda's filters are one language, and a rule using an operator the harness does not implement
 * stops the harness when it reads the templates, rather than deliver events AWS would not.
 */

export class UnsupportedEventRule extends Error {
  override name = 'UnsupportedEventRule';
}

/** Where a rule sends what it matches: an SQS queue, a Lambda function (by local name), or another kind. */
export type RuleTarget =
  | { kind: 'sqs'; id: string; arn: string }
  | { kind: 'lambda'; id: string; arn: string; functionName: string }
  | { kind: 'other'; id: string; arn: string };

interface RuleBase {
  /** `<stack>/<logical id>`, for messages. */
  id: string;
  /** The rule's ARN (`arn:aws:events:<region>:<account>:rule/<name>`), as a scheduled event names it. */
  arn: string;
  targets: RuleTarget[];
}

export interface BusRule extends RuleBase {
  /** The bus's name (a rule without EventBusName is on the account's `default` bus). */
  busName: string;
  pattern: FilterPattern;
}

export interface ScheduleRule extends RuleBase {
  expression: string;
  /** The rate, in milliseconds. */
  everyMs: number;
}

export interface EventRules {
  busRules: BusRule[];
  scheduleRules: ScheduleRule[];
  /** What the templates hold that the harness does not run (a cron expression, …), one line each. */
  skipped: string[];
}

/** Every enabled rule of the templates, in the order they list them. */
export function eventRules(templates: TemplateSet): EventRules {
  const resolver = localTemplateResolver(templates);
  const rules: EventRules = { busRules: [], scheduleRules: [], skipped: [] };
  for (const [stack, template] of templates) {
    for (const [logicalId, resource] of Object.entries(template.Resources ?? {})) {
      if (resource.Type !== 'AWS::Events::Rule') continue;
      const properties = resource.Properties ?? {};
      const id = `${stack}/${logicalId}`;
      if (properties.State !== undefined && properties.State !== 'ENABLED') continue;
      const base: RuleBase = {
        id,
        arn: `arn:${LOCAL_ACCOUNT.partition}:events:${LOCAL_ACCOUNT.region}:${LOCAL_ACCOUNT.accountId}:rule/${resolver.physicalName(stack, logicalId)}`,
        targets: ((properties.Targets ?? []) as Record<string, Json>[]).map((target) =>
          ruleTarget(resolver, stack, id, target),
        ),
      };
      if (properties.ScheduleExpression !== undefined) {
        const expression = String(resolver.resolve(stack, properties.ScheduleExpression));
        const everyMs = rateMs(expression);
        if (everyMs === undefined) {
          rules.skipped.push(`${id}: the schedule ${expression} (the harness runs rate(…) schedules only)`);
          continue;
        }
        rules.scheduleRules.push({ ...base, expression, everyMs });
        continue;
      }
      if (properties.EventPattern === undefined) continue;
      const pattern =
        typeof properties.EventPattern === 'string'
          ? properties.EventPattern
          : JSON.stringify(resolver.resolve(stack, properties.EventPattern));
      let compiled: FilterPattern;
      try {
        compiled = compileFilterPattern(pattern);
      } catch (error) {
        throw new UnsupportedEventRule(`${id}: ${(error as Error).message}`);
      }
      rules.busRules.push({
        ...base,
        busName:
          properties.EventBusName === undefined
            ? 'default'
            : busNameOf(String(resolver.resolve(stack, properties.EventBusName))),
        pattern: compiled,
      });
    }
  }
  return rules;
}

/** A bus named by its name or its ARN (`…:event-bus/<name>`): its name. */
export const busNameOf = (nameOrArn: string): string =>
  nameOrArn.startsWith('arn:') ? (nameOrArn.split(':event-bus/')[1] ?? nameOrArn) : nameOrArn;

function ruleTarget(
  resolver: TemplateResolver,
  stack: string,
  rule: string,
  target: Record<string, Json>,
): RuleTarget {
  const id = String(target.Id ?? '');
  for (const transform of ['Input', 'InputPath', 'InputTransformer', 'SqsParameters'] as const) {
    if (target[transform] !== undefined) {
      throw new UnsupportedEventRule(
        `${rule}: target ${id} sets ${transform}; the harness sends targets the whole event only`,
      );
    }
  }
  const arn = String(resolver.resolve(stack, target.Arn ?? null));
  if (/^arn:[^:]+:sqs:/.test(arn)) return { kind: 'sqs', id, arn };
  const lambda = /^arn:[^:]+:lambda:[^:]*:[^:]*:function:([^:]+)/.exec(arn);
  const prefix = functionNamePrefix(LOCAL_STAGE);
  if (lambda?.[1]?.startsWith(prefix)) {
    return { kind: 'lambda', id, arn, functionName: lambda[1].slice(prefix.length) };
  }
  return { kind: 'other', id, arn };
}

const RATE = /^rate\(\s*(\d+)\s+(minute|minutes|hour|hours|day|days)\s*\)$/;
const UNIT_MS: Record<string, number> = { minute: 60_000, hour: 3_600_000, day: 86_400_000 };

/**
 * `rate(N unit)` in milliseconds; undefined for anything else (cron). As in EventBridge, a rate of
 * 1 takes the singular unit and any other the plural.
 */
export function rateMs(expression: string): number | undefined {
  const match = RATE.exec(expression.trim());
  if (!match) return undefined;
  const count = Number(match[1]);
  const unit = match[2] as string;
  const singular = !unit.endsWith('s');
  if (count < 1 || (count === 1) !== singular) return undefined;
  return count * (UNIT_MS[singular ? unit : unit.slice(0, -1)] as number);
}

/** An event as EventBridge hands it to a target (and as a pattern sees it). */
export interface EventEnvelope {
  version: '0';
  id: string;
  'detail-type': string;
  source: string;
  account: string;
  time: string;
  region: string;
  resources: string[];
  detail: Record<string, unknown>;
}

/** EventBridge's `time`: ISO 8601 to the second. */
const eventTime = (at: Date | string) => new Date(at).toISOString().replace(/\.\d{3}Z$/, 'Z');

/** The envelope of an event the local bus received. */
export function eventEnvelope(event: BusEvent): EventEnvelope {
  return {
    version: '0',
    id: event.id,
    'detail-type': event.detail_type,
    source: event.source,
    account: LOCAL_ACCOUNT.accountId,
    time: eventTime(event.received_at),
    region: LOCAL_ACCOUNT.region,
    resources: event.resources,
    detail: event.detail,
  };
}

/** What a schedule rule sends its targets. */
export function scheduledEvent(rule: Pick<ScheduleRule, 'arn'>, at: Date = new Date()): EventEnvelope {
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': 'Scheduled Event',
    source: 'aws.events',
    account: LOCAL_ACCOUNT.accountId,
    time: eventTime(at),
    region: LOCAL_ACCOUNT.region,
    resources: [rule.arn],
    detail: {},
  };
}

/** The rules an event on a bus matches. */
export function matchingRules(
  rules: readonly BusRule[],
  busName: string,
  envelope: EventEnvelope,
): BusRule[] {
  const bus = busNameOf(busName);
  return rules.filter((rule) => rule.busName === bus && matchesPattern(envelope, rule.pattern));
}
