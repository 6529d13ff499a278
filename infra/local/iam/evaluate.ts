import { getDenialReasons, runSimulation } from '@cloud-copilot/iam-simulate';
import type { IamRequest } from './iam-request.ts';
import type { ExtractedPolicies, FunctionPolicies, PolicyDocument } from './role-policies.ts';

/**
 * Evaluates one IAM request of one function against its role's identity policies and the
 * resource's policy, with the maintained simulator `@cloud-copilot/iam-simulate` (which applies
 * AWS's evaluation logic, same-account rules included, and checks every request against the
 * Service Authorization Reference). Only the condition keys a function's policies name take part,
 * so requests that differ in nothing a policy reads share one decision: decisions are cached per
 * function.
 */

/** Why AWS refuses, in the words its AccessDenied messages use. */
export type DenialReason =
  | 'no-identity-policy-allows'
  | 'explicit-deny-in-identity-policy'
  | 'explicit-deny-in-resource-policy'
  | 'no-resource-policy-allows';

export type Decision = { allowed: true } | { allowed: false; reason: DenialReason };

/** A request the simulator could not evaluate: an action, ARN or key the reference does not know. */
export class InvalidIamRequestError extends Error {
  override name = 'InvalidIamRequestError';
}

/** Condition keys and policy variables (`${aws:userid}`) a policy names, lower-cased. */
function keysNamed(policies: PolicyDocument[]): Set<string> {
  const keys = new Set<string>();
  const text = JSON.stringify(policies);
  for (const [, variable] of text.matchAll(/\$\{([^}]+)\}/g)) keys.add(String(variable).toLowerCase());
  for (const policy of policies) {
    for (const statement of policy.Statement) {
      for (const operator of Object.values(statement.Condition ?? {})) {
        for (const key of Object.keys(operator)) keys.add(key.toLowerCase());
      }
    }
  }
  return keys;
}

/** The global condition keys of a request made with a Lambda function's role session credentials. */
function globalKeys(fn: FunctionPolicies, account: ExtractedPolicies['account']): Record<string, string> {
  const now = new Date();
  return {
    'aws:SecureTransport': 'true',
    'aws:PrincipalArn': fn.roleArn,
    'aws:PrincipalAccount': account.accountId,
    'aws:PrincipalType': 'AssumedRole',
    'aws:userid': `AROALOCAL:${fn.functionName}`,
    'aws:RequestedRegion': account.region,
    'aws:ViaAWSService': 'false',
    'aws:CurrentTime': now.toISOString(),
    'aws:EpochTime': String(Math.floor(now.getTime() / 1000)),
    'lambda:SourceFunctionArn': `arn:${account.partition}:lambda:${account.region}:${account.accountId}:function:${fn.functionName}`,
  };
}

function denialReason(analysis: Parameters<typeof getDenialReasons>[0]): DenialReason {
  const reasons = getDenialReasons(analysis);
  const explicit = (type: string) =>
    reasons.some((reason) => reason.denialType === 'Explicit' && reason.policyType === type);
  if (explicit('identity')) return 'explicit-deny-in-identity-policy';
  if (explicit('resource')) return 'explicit-deny-in-resource-policy';
  if (
    !reasons.some((reason) => reason.policyType === 'identity') &&
    reasons.some((r) => r.policyType === 'resource')
  ) {
    return 'no-resource-policy-allows';
  }
  return 'no-identity-policy-allows';
}

interface FunctionCache {
  keys: Set<string>;
  decisions: Map<string, Decision>;
}

/** Past this many distinct requests of one function, its decisions start over (a bound, not a tuning). */
const MAX_DECISIONS_PER_FUNCTION = 10_000;

export class PolicyEvaluator {
  private readonly caches = new Map<string, FunctionCache>();
  /** Every request evaluated since start, and how many were refused. */
  readonly counts = { evaluated: 0, allowed: 0, denied: 0 };

  constructor(private readonly policies: ExtractedPolicies) {}

  /** The function's policies, by its operation id or trigger name; throws for one not in the templates. */
  functionPolicies(name: string): FunctionPolicies {
    const found = this.policies.functions.get(name);
    if (!found) throw new Error(`The synthesized templates have no function ${name}`);
    return found;
  }

  private cacheOf(fn: FunctionPolicies): FunctionCache {
    let cache = this.caches.get(fn.name);
    if (!cache) {
      cache = { keys: keysNamed(fn.identityPolicies.map((entry) => entry.policy)), decisions: new Map() };
      this.caches.set(fn.name, cache);
    }
    return cache;
  }

  /**
   * The condition keys (lower-cased) any decision for the function can depend on: those of its
   * policies and of every resource policy. Two requests of the function that agree on action,
   * resource and these keys get the same decision, unless a policy reads the time (undefined then).
   */
  decisionKeys(name: string): string[] | undefined {
    const keys = new Set([
      ...this.cacheOf(this.functionPolicies(name)).keys,
      ...keysNamed(this.policies.resourcePolicies),
    ]);
    if (keys.has('aws:currenttime') || keys.has('aws:epochtime')) return undefined;
    return [...keys].sort();
  }

  async evaluate(name: string, request: IamRequest): Promise<Decision> {
    const fn = this.functionPolicies(name);
    const cache = this.cacheOf(fn);
    const resourcePolicy = this.policies.resourcePolicyFor(request.resource);
    const read = resourcePolicy ? new Set([...cache.keys, ...keysNamed([resourcePolicy])]) : cache.keys;
    const context: Record<string, string | string[]> = {};
    for (const [key, value] of Object.entries({
      ...globalKeys(fn, this.policies.account),
      ...request.context,
    })) {
      if (read.has(key.toLowerCase())) context[key] = value;
    }
    const cacheKey = JSON.stringify([request.action, request.resource, context]);
    let decision = cache.decisions.get(cacheKey);
    if (!decision) {
      decision = await this.simulate(fn, request, context, resourcePolicy);
      if (cache.decisions.size >= MAX_DECISIONS_PER_FUNCTION) cache.decisions.clear();
      cache.decisions.set(cacheKey, decision);
    }
    this.counts.evaluated += 1;
    this.counts[decision.allowed ? 'allowed' : 'denied'] += 1;
    return decision;
  }

  private async simulate(
    fn: FunctionPolicies,
    request: IamRequest,
    context: Record<string, string | string[]>,
    resourcePolicy: PolicyDocument | undefined,
  ): Promise<Decision> {
    const result = await runSimulation(
      {
        request: {
          principal: fn.principalArn,
          action: request.action,
          resource: { resource: request.resource, accountId: this.policies.account.accountId },
          contextVariables: context,
        },
        identityPolicies: fn.identityPolicies,
        serviceControlPolicies: [],
        resourceControlPolicies: [],
        ...(resourcePolicy ? { resourcePolicy } : {}),
      },
      {},
    );
    if (result.resultType === 'error') {
      throw new InvalidIamRequestError(
        `${fn.name}: ${request.action} on ${request.resource} cannot be evaluated: ${JSON.stringify(result.errors)}`,
      );
    }
    if (result.overallResult === 'Allowed') return { allowed: true };
    const analysis = result.resultType === 'single' ? result.result.analysis : result.results[0]?.analysis;
    return { allowed: false, reason: analysis ? denialReason(analysis) : 'no-identity-policy-allows' };
  }
}
