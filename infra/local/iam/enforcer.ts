import { LOCAL_STAGE, LOCAL_TABLE_NAME } from '../local-names.ts';
import { accessDeniedMessage } from './access-denied.ts';
import type { DenialReason } from './evaluate.ts';
import { PolicyEvaluator } from './evaluate.ts';
import { type IamRequest, type LocalAccount, regionalArn } from './iam-request.ts';
import { LOCAL_ACCOUNT, localTemplateResolver } from './local-account.ts';
import { extractPolicies } from './role-policies.ts';
import type { TemplateSet } from './template-resolver.ts';

/**
 * The harness's side of IAM enforcement (docs/harness.md, 'IAM enforcement'): each function's
 * worker turns an SDK call into IAM requests (sdk-enforcement.ts) and asks here whether the
 * function's role may make them; one evaluator, with its per-function decision cache, serves every
 * worker, and counts what it decided for the end-of-run report.
 */

/** What a worker needs to turn its calls into IAM requests: the account and the SES identities. */
export interface CallScopeSetup {
  account: LocalAccount;
  sesIdentities: string[];
}

/** One SDK call a worker asks about. */
export interface AuthorizationQuestion {
  clientName: string;
  commandName: string;
  requests: IamRequest[];
  /** A presigned URL was built (nothing sent): its refusal is only reported, as S3 would refuse its use. */
  presigned: boolean;
  /** Why the call has no IAM requests (no mapping knows it, or its input lacks what AWS reads). */
  unevaluable?: string;
}

export type Authorization =
  | { allowed: true }
  | { allowed: false; principalArn: string; request: IamRequest; reason: DenialReason }
  /** The call could not be evaluated (no such function in the templates; an invalid request). */
  | { error: string };

/** Calls decided since start: in total, per SDK client (`DynamoDB`), and IAM requests per action. */
export interface IamReport {
  calls: { evaluated: number; allowed: number; denied: number };
  byService: Record<string, number>;
  byAction: Record<string, number>;
  denials: string[];
}

/** Calls a worker allowed by a decision the harness gave it before (sdk-enforcement.ts), to be counted here. */
export interface AllowedElsewhere {
  calls: number;
  byService: Record<string, number>;
  byAction: Record<string, number>;
}

/** Past this many, further denials are counted but their messages not kept. */
const KEPT_DENIALS = 50;

export class IamEnforcer {
  private readonly evaluator: PolicyEvaluator;
  readonly scopeSetup: CallScopeSetup;
  /** The functions the templates define, by operation id or trigger name. */
  readonly functionNames: string[];
  private readonly report_: IamReport = {
    calls: { evaluated: 0, allowed: 0, denied: 0 },
    byService: {},
    byAction: {},
    denials: [],
  };

  constructor(templates: TemplateSet) {
    const policies = extractPolicies(localTemplateResolver(templates), LOCAL_STAGE);
    this.functionNames = [...policies.functions.keys()];
    this.evaluator = new PolicyEvaluator(policies);
    this.scopeSetup = { account: LOCAL_ACCOUNT, sesIdentities: policies.sesIdentities };
  }

  /** Whether the function (operation id or trigger name) may make the call: its first refusal, else allowed. */
  async authorize(name: string, question: AuthorizationQuestion): Promise<Authorization> {
    const outcome = await this.decide(name, question);
    const { calls, byService, byAction } = this.report_;
    calls.evaluated += 1;
    const service = question.clientName.replace(/Client$/, '');
    byService[service] = (byService[service] ?? 0) + 1;
    for (const request of question.requests) byAction[request.action] = (byAction[request.action] ?? 0) + 1;
    if ('allowed' in outcome && outcome.allowed) {
      calls.allowed += 1;
      return outcome;
    }
    calls.denied += 1;
    const why =
      'error' in outcome
        ? outcome.error
        : `${question.presigned ? 'a presigned URL S3 would refuse: ' : ''}${accessDeniedMessage({
            ...question,
            ...outcome,
            requestId: '',
          })}`;
    const line = `${name}: ${question.clientName} ${question.commandName} refused: ${why}`;
    if (this.report_.denials.length < KEPT_DENIALS) this.report_.denials.push(line);
    console.error(`[iam] ${line}`);
    return outcome;
  }

  /** The condition keys the function's decisions depend on, for a worker to reuse its allowed ones. */
  decisionKeys(name: string): string[] | undefined {
    try {
      return this.evaluator.decisionKeys(name);
    } catch {
      return undefined;
    }
  }

  /** Count calls a worker allowed on a decision it was given before. */
  countAllowedElsewhere(counted: AllowedElsewhere): void {
    const { calls, byService, byAction } = this.report_;
    calls.evaluated += counted.calls;
    calls.allowed += counted.calls;
    for (const [service, count] of Object.entries(counted.byService)) {
      byService[service] = (byService[service] ?? 0) + count;
    }
    for (const [action, count] of Object.entries(counted.byAction)) {
      byAction[action] = (byAction[action] ?? 0) + count;
    }
  }

  private async decide(
    name: string,
    { requests, unevaluable }: AuthorizationQuestion,
  ): Promise<Authorization> {
    if (unevaluable !== undefined) return { error: unevaluable };
    try {
      for (const request of requests) {
        const decision = await this.evaluator.evaluate(name, request);
        if (!decision.allowed) {
          const { principalArn } = this.evaluator.functionPolicies(name);
          return { allowed: false, principalArn, request, reason: decision.reason };
        }
      }
      return { allowed: true };
    } catch (error) {
      return { error: error instanceof Error ? error.message : String(error) };
    }
  }

  /**
   * Load the simulator before the first request needs it (its first evaluation reads the Service
   * Authorization Reference, about a tenth of a second); not counted in the report.
   */
  async warm(): Promise<void> {
    const [name] = this.functionNames;
    if (name === undefined) return;
    const table = regionalArn(LOCAL_ACCOUNT, 'dynamodb', `table/${LOCAL_TABLE_NAME}`);
    await this.decide(name, {
      clientName: 'DynamoDBClient',
      commandName: 'GetItemCommand',
      presigned: false,
      requests: [{ action: 'dynamodb:GetItem', resource: table, context: {} }],
    });
  }

  report(): IamReport {
    return structuredClone(this.report_);
  }
}

/** One line for a person: `IAM: 1234 calls checked (DynamoDB 1200, S3 34), 1234 allowed, 0 refused`. */
export function describeIamReport(report: IamReport): string {
  const services = Object.entries(report.byService)
    .sort(([, a], [, b]) => b - a)
    .map(([service, count]) => `${service} ${count}`)
    .join(', ');
  const { evaluated, allowed, denied } = report.calls;
  return `IAM: ${evaluated} SDK calls checked against their function's role${services ? ` (${services})` : ''}: ${allowed} allowed, ${denied} refused`;
}
