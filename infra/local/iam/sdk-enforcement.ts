import { randomUUID } from 'node:crypto';
import { createRequire } from 'node:module';
import { accessDeniedAnswer } from './access-denied.ts';
import { iamRequestsFor } from './call-authorization.ts';
import type { AllowedElsewhere, Authorization, AuthorizationQuestion } from './enforcer.ts';
import type { CallScope, IamRequest, SdkCall } from './iam-request.ts';

/**
 * The function's side of IAM enforcement, in its worker: every AWS SDK client the function makes
 * (its own, and those libraries make for it, such as Powertools' Secrets Manager provider) gets
 * two middlewares before its first call:
 *
 * - at `deserialize` (low priority, so below the SDK's deserializer, where the network answers),
 *   the call is turned into IAM requests and asked about; a refused call never reaches the
 *   emulator, and AWS's AccessDenied answer is handed to the deserializer in its place, so the SDK
 *   throws what it throws in AWS;
 * - at `initialize`, a call that never reached `deserialize` is asked about after it is answered,
 *   and a refusal is reported: a presigned URL (the presigner stops at signing; building the URL
 *   succeeds in AWS too, S3 refuses its use), or a call a test answered in AWS's place.
 *
 * A call no mapping knows throws (call-authorization.ts): nothing passes unchecked. Allowed
 * decisions are reused in the worker for calls that agree on what they depend on (`decisionKeys`).
 */

export type AskAuthorization = (question: AuthorizationQuestion) => Promise<Authorization>;

/**
 * The per-invocation time spent asking, for the harness's latency figure: wall-clock time while at
 * least one of the invocation's calls waits for its decision (calls sent together wait together).
 */
export interface EnforcementClock {
  ms: number;
  /** Questions of the invocation now waiting, and since when the first of them has. */
  waiting?: number;
  since?: number;
}

type Middleware = (
  next: (args: Args) => Promise<unknown>,
  context: Context,
) => (args: Args) => Promise<unknown>;
type Args = { input: unknown };
type Context = { clientName: string; commandName: string; [REACHED]?: { sent: boolean } };
interface Stack {
  add(middleware: Middleware, options: { step: string; name: string; priority?: string }): void;
}
interface AnyClient {
  middlewareStack: Stack;
}

const REACHED = Symbol('localIamReachedTheWire');

/** Once per process (a worker, a test file): it patches the SDK's client class. */
export function installIamEnforcement(options: {
  scope: CallScope;
  ask: AskAuthorization;
  /** The current invocation's clock (none outside an invocation). */
  clock: () => EnforcementClock | undefined;
  /**
   * The condition keys the function's decisions depend on (IamEnforcer.decisionKeys): a call whose
   * requests agree with ones allowed before on action, resource and these keys is allowed here
   * without asking, and counted in `allowedHere` for the harness. Without them, every call asks.
   */
  decisionKeys?: readonly string[];
}): { attach(client: { middlewareStack: unknown }): void; takeAllowedHere(): AllowedElsewhere } {
  const { scope, ask, clock, decisionKeys } = options;
  const relevant = new Set(decisionKeys ?? []);
  const allowedBefore = new Set<string>();
  const decisionKey = (request: IamRequest) =>
    JSON.stringify([
      request.action,
      request.resource,
      Object.entries(request.context)
        .filter(([key]) => relevant.has(key.toLowerCase()))
        .sort(([a], [b]) => a.localeCompare(b)),
    ]);
  let allowedHere: AllowedElsewhere = { calls: 0, byService: {}, byAction: {} };
  const decidedBefore = (question: AuthorizationQuestion): boolean => {
    if (!decisionKeys || question.unevaluable !== undefined || question.requests.length === 0) return false;
    if (!question.requests.every((request) => allowedBefore.has(decisionKey(request)))) return false;
    const service = question.clientName.replace(/Client$/, '');
    allowedHere.calls += 1;
    allowedHere.byService[service] = (allowedHere.byService[service] ?? 0) + 1;
    for (const { action } of question.requests) {
      allowedHere.byAction[action] = (allowedHere.byAction[action] ?? 0) + 1;
    }
    return true;
  };
  const decideUntimed = async (question: AuthorizationQuestion): Promise<Authorization> => {
    if (decidedBefore(question)) return { allowed: true };
    const outcome = await ask(question);
    if ('allowed' in outcome && outcome.allowed && decisionKeys) {
      for (const request of question.requests) allowedBefore.add(decisionKey(request));
    }
    return outcome;
  };
  /** The decision, its time on the invocation's clock (from the call's requests on). */
  const decide = async (requestsOf: () => AuthorizationQuestion): Promise<Authorization> => {
    const current = clock();
    if (current && !current.waiting) current.since = performance.now();
    if (current) current.waiting = (current.waiting ?? 0) + 1;
    try {
      return await decideUntimed(requestsOf());
    } finally {
      if (current) {
        current.waiting = (current.waiting ?? 1) - 1;
        if (current.waiting === 0) current.ms += performance.now() - (current.since ?? performance.now());
      }
    }
  };
  const question = (context: Context, input: unknown, presigned: boolean): AuthorizationQuestion => {
    const call: SdkCall = {
      clientName: context.clientName,
      commandName: context.commandName,
      input,
      presigned,
    };
    const asked = { clientName: call.clientName, commandName: call.commandName, presigned };
    try {
      return { ...asked, requests: iamRequestsFor(call, scope) };
    } catch (error) {
      // Unmapped or malformed: asked about anyway, so that it is counted and reported as refused.
      return { ...asked, requests: [], unevaluable: error instanceof Error ? error.message : String(error) };
    }
  };

  const onTheWire: Middleware = (next, context) => async (args) => {
    const reached = context[REACHED];
    if (reached) reached.sent = true;
    const outcome = await decide(() => question(context, args.input, false));
    if ('error' in outcome) throw new Error(`IAM enforcement could not decide: ${outcome.error}`);
    if (outcome.allowed) return next(args);
    const { clientName, commandName } = context;
    const { principalArn, request, reason } = outcome;
    return {
      response: accessDeniedAnswer({
        clientName,
        commandName,
        principalArn,
        request,
        reason,
        requestId: randomUUID(),
      }),
    };
  };

  const notSent: Middleware = (next, context) => async (args) => {
    const reached = { sent: false };
    context[REACHED] = reached;
    const result = (await next(args)) as { output?: { presigned?: unknown } };
    // Answered before the wire: a presigned URL (the presigner's answer carries it), or an answer
    // a test injected in AWS's place, which AWS would give only to a call it authorized.
    if (!reached.sent)
      await decide(() => question(context, args.input, result?.output?.presigned !== undefined));
    return result;
  };

  const takeAllowedHere = () => {
    const taken = allowedHere;
    allowedHere = { calls: 0, byService: {}, byAction: {} };
    return taken;
  };

  const attached = new WeakSet<Stack>();
  const attach = (client: { middlewareStack: unknown }) => {
    // Each client types its stack by its own commands; these middlewares read any command.
    const stack = client.middlewareStack as Stack;
    // A document client shares its client's stack: one pair of middlewares per stack.
    if (attached.has(stack)) return;
    attached.add(stack);
    stack.add(onTheWire, {
      step: 'deserialize',
      priority: 'low',
      name: 'localIamEnforcement',
    });
    stack.add(notSent, { step: 'initialize', priority: 'high', name: 'localIamNotSent' });
  };

  // Every client's send: the SDK's clients all extend this one class (loaded as the SDK loads it).
  const { Client } = createRequire(import.meta.url)('@smithy/core/client') as {
    Client: { prototype: AnyClient & { send(...args: unknown[]): unknown } };
  };
  const send = Client.prototype.send;
  Client.prototype.send = function sendChecked(this: AnyClient, ...args: unknown[]) {
    attach(this);
    return send.apply(this, args);
  };
  return { attach, takeAllowedHere };
}
