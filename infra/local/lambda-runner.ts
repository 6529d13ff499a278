import { randomUUID } from 'node:crypto';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { APIGatewayProxyEventV2 } from 'aws-lambda';
import type { RouteDefinition, RoutePermissions } from '#lib/http/route.ts';
import { type DynamoUsage, emptyUsage } from './dynamodb-usage.ts';
import {
  type FunctionConfiguration,
  functionConfigurations,
  harnessValuesIn,
  LOCAL_PLATFORM_VARIABLES,
  LOCAL_STAND_INS,
  localEnvironment,
} from './function-configuration.ts';
import { MAX_LAMBDA_PAYLOAD_BYTES } from './http-api-event.ts';
import { type AllowedElsewhere, type AuthorizationQuestion, IamEnforcer } from './iam/enforcer.ts';
import { localTemplates } from './iam/template-cache.ts';
import type { TemplateSet } from './iam/template-resolver.ts';

export interface HttpResponse {
  statusCode: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

/** What one invocation answered, and the DynamoDB calls it made (counted inside its worker). */
export interface Invocation {
  response: HttpResponse;
  usage: DynamoUsage;
  /** Milliseconds its SDK calls waited for their IAM decisions (the harness's added latency). */
  iamMs: number;
}

/**
 * The slice of a route the runner needs: which function, which file, whether it is granted the
 * photo bucket, and settings of its environment beyond its template's (a container of its own per
 * distinct settings, as a function deployed with other settings would be). Its role, environment,
 * timeout and memory are the synthesized templates' (LocalFunctions).
 */
export type FunctionDefinition = Pick<RouteDefinition, 'operationId' | 'handler'> & {
  permissions?: Pick<RoutePermissions, 'photos'>;
  environment?: Record<string, string>;
  /**
   * The deployed function (operation id) whose role and configuration it runs with, when it has
   * none of its own in the templates: a test's stand-in function.
   */
  deployedAs?: string;
};

/** What every function runs with: the templates' roles and configurations, and the harness's values. */
export interface LocalFunctions {
  enforcer: IamEnforcer;
  configurations: ReadonlyMap<string, FunctionConfiguration>;
  /** The harness's variables: the emulators' endpoints and the stand-ins' values (function-configuration.ts). */
  localValues: Readonly<Record<string, string | undefined>>;
  /** Every name the harness or a template sets: kept out of what a worker inherits from this process. */
  shapedNames: ReadonlySet<string>;
}

/** Both, from one set of templates. */
export function localFunctionsOf(
  templates: TemplateSet,
  localValues: LocalFunctions['localValues'],
): LocalFunctions {
  const configurations = functionConfigurations(templates);
  const shapedNames = new Set<string>([
    ...Object.keys(localValues),
    ...LOCAL_PLATFORM_VARIABLES,
    ...Object.entries(LOCAL_STAND_INS).flatMap(([name, standIns]) => [name, ...standIns]),
    ...[...configurations.values()].flatMap((configuration) => Object.keys(configuration.environment)),
  ]);
  return { enforcer: new IamEnforcer(templates), configurations, localValues, shapedNames };
}

/** Warm functions kept at once; past it the least recently used idle one is reclaimed, as Lambda does. */
const MAX_WARM_FUNCTIONS = Number(process.env.LOCAL_MAX_WARM_FUNCTIONS ?? 100);
const WORKER_FILE = new URL('./lambda-worker.mjs', import.meta.url);

/**
 * The init phase (loading the function's module) does not count against its timeout, as in Lambda.
 * Lambda stops an init at 10 s; loading TypeScript sources through tsx on a busy machine is far
 * slower than importing a bundle, so the harness allows a minute.
 */
const INIT_TIMEOUT_MS = 60_000;

interface WorkerReply {
  ready?: true;
  initError?: string;
  /** An SDK call of the function, asking whether its role may make it. */
  ask?: { id: number; question: AuthorizationQuestion };
  id: string;
  result?: unknown;
  usage?: DynamoUsage;
  iamMs?: number;
  /** Calls the worker allowed on decisions it was given before (counted in the harness's report). */
  iamAllowedHere?: AllowedElsewhere;
  error?: string;
}

/**
 * One function's execution environment: a worker thread with its own module scope and environment,
 * kept warm between invocations and thrown away when an invocation times out, so that nothing the
 * timed-out invocation does afterwards (a DynamoDB write, an e-mail) can happen, as in Lambda.
 * Concurrent invocations of the same function share it (Lambda would give each its own).
 */
class FunctionContainer {
  readonly worker: Worker;
  readonly pending = new Map<string, (reply: WorkerReply) => void>();
  /** Settles once the handler module is loaded (Lambda's init phase): undefined, or why it failed. */
  readonly initialized: Promise<string | undefined>;
  lastUsed = Date.now();
  /**
   * Invocations taken and not yet answered, counted from before the init: a container loading its
   * module is not idle, though no invocation has reached its worker yet.
   */
  inFlight = 0;

  constructor(
    readonly key: string,
    rootDir: string,
    definition: FunctionDefinition,
    local: LocalFunctions,
    configuration: FunctionConfiguration,
    private readonly onGone: (container: FunctionContainer) => void,
  ) {
    const { enforcer } = local;
    this.worker = new Worker(WORKER_FILE, {
      workerData: {
        handlerFile: definition.handler,
        handlerUrl: pathToFileURL(resolve(rootDir, definition.handler)).href,
        photoBucket: definition.permissions?.photos !== undefined,
        callScope: enforcer.scopeSetup,
        decisionKeys: enforcer.decisionKeys(definition.deployedAs ?? definition.operationId),
      },
      env: {
        ...processEnvironment(local),
        ...localEnvironment(configuration, local.localValues),
        ...definition.environment,
        AWS_LAMBDA_FUNCTION_NAME: definition.operationId,
        AWS_LAMBDA_FUNCTION_VERSION: '$LATEST',
        AWS_LAMBDA_FUNCTION_MEMORY_SIZE: String(configuration.memoryMb),
      },
    });
    // An idle warm function must not keep a CLI process alive; a pending invocation's timer does.
    this.worker.unref();
    let initialized: (failure: string | undefined) => void = () => undefined;
    this.initialized = new Promise((settle) => {
      initialized = settle;
    });
    this.worker.on('message', (reply: WorkerReply) => {
      if (reply.ask) {
        const { id, question } = reply.ask;
        void enforcer.authorize(definition.deployedAs ?? definition.operationId, question).then((outcome) => {
          this.worker.postMessage({ answer: { id, outcome } });
        });
        return;
      }
      if (reply.iamAllowedHere) enforcer.countAllowedElsewhere(reply.iamAllowedHere);
      if (reply.ready || reply.initError !== undefined) return initialized(reply.initError);
      this.pending.get(reply.id)?.(reply);
      this.pending.delete(reply.id);
    });
    const fail = (error: unknown) => {
      initialized(`the function's worker stopped: ${String(error)}`);
      this.settleAll(`the function's worker stopped: ${String(error)}`);
    };
    this.worker.on('error', fail);
    this.worker.on('exit', (code) => fail(`exit code ${code}`));
  }

  invoke(event: unknown, context: Record<string, unknown>): Promise<WorkerReply> {
    const id = randomUUID();
    this.lastUsed = Date.now();
    return new Promise((settle) => {
      this.pending.set(id, settle);
      this.worker.postMessage({ id, event, context });
    });
  }

  /** Stop the worker at once (a timeout, or the harness stopping); what it was doing never completes. */
  async stop(reason: string): Promise<void> {
    this.settleAll(reason);
    await this.worker.terminate();
  }

  private settleAll(reason: string): void {
    this.onGone(this);
    for (const settle of this.pending.values()) settle({ id: '', error: reason });
    this.pending.clear();
  }
}

const containers = new Map<string, FunctionContainer>();

/**
 * The roles and configurations every function runs with: the harness hands over the ones it built
 * at start; a program that invokes a function without a harness (`npm run invoke`, a test) gets
 * them from the cached templates on first use, and the harness's values from its own environment.
 * There is no way to run a function unchecked.
 */
let localFunctions: Promise<LocalFunctions> | undefined;

export function useLocalFunctions(ready: LocalFunctions): void {
  localFunctions = Promise.resolve(ready);
}

function currentLocalFunctions(): Promise<LocalFunctions> {
  localFunctions ??= localTemplates().then(({ templates }) =>
    localFunctionsOf(templates, harnessValuesIn(process.env)),
  );
  return localFunctions;
}

/**
 * What a worker inherits from this process: its environment without anything the harness or a
 * template sets, so that a function sees only its own template's variables (and the platform's).
 */
function processEnvironment(local: LocalFunctions): Record<string, string | undefined> {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !local.shapedNames.has(name)));
}

function containerFor(
  rootDir: string,
  definition: FunctionDefinition,
  local: LocalFunctions,
  configuration: FunctionConfiguration,
): FunctionContainer {
  const key = `${definition.operationId} ${definition.handler} ${JSON.stringify(definition.environment ?? {})}`;
  const warm = containers.get(key);
  if (warm) return warm;
  // Room for the new one: the least recently used idle ones go (stop() forgets each at once). Busy
  // ones stay, so the warm ones may outnumber the limit while they all work, as in Lambda.
  const idle = [...containers.values()]
    .filter((container) => container.inFlight === 0)
    .sort((a, b) => a.lastUsed - b.lastUsed);
  for (const container of idle) {
    if (containers.size < MAX_WARM_FUNCTIONS) break;
    void container.stop('reclaimed');
  }
  const container = new FunctionContainer(key, rootDir, definition, local, configuration, (gone) => {
    if (containers.get(gone.key) === gone) containers.delete(gone.key);
  });
  containers.set(key, container);
  return container;
}

/** Stop every warm function (the harness stopping, or a CLI done with its one invocation). */
export async function stopFunctions(): Promise<void> {
  await Promise.allSettled([...containers.values()].map((container) => container.stop('stopped')));
}

/**
 * How one invocation ended, as Lambda reports it to whatever invoked the function: what the handler
 * returned, or that it failed (threw, timed out, failed to initialise, or has no function in the
 * templates). API Gateway (invokeRoute) and the stream poller (events/stream-poller.ts) each turn
 * it into what their AWS counterpart does with it.
 */
export type FunctionOutcome = (
  | { returned: true; result: unknown }
  | { returned: false; failure: 'no-function' | 'init' | 'error' | 'timeout'; message: string }
) & { usage: DynamoUsage; iamMs: number };

/**
 * Invoke a function with a Lambda-like context and its timeout (its worker is stopped on a timeout,
 * so the invocation cannot finish later). `event` is whatever its trigger sends: an API Gateway
 * payload, a DynamoDB stream batch.
 */
export async function invokeFunction(
  rootDir: string,
  definition: FunctionDefinition,
  event: unknown,
  /** Instead of the template's timeout (tests of stalls). */
  timeoutOverrideSeconds?: number,
): Promise<FunctionOutcome> {
  const noUsage: DynamoUsage = emptyUsage();
  const failed = (
    failure: 'no-function' | 'init' | 'error' | 'timeout',
    message: string,
    reply?: WorkerReply,
  ) => {
    console.error(`[harness] ${definition.operationId} ${message}`);
    return {
      returned: false,
      failure,
      message,
      usage: reply?.usage ?? noUsage,
      iamMs: reply?.iamMs ?? 0,
    } as const;
  };
  const local = await currentLocalFunctions();
  const name = definition.deployedAs ?? definition.operationId;
  const configuration = local.configurations.get(name);
  if (!configuration)
    return failed('no-function', `is not run: the synthesized templates have no function ${name}`);
  const timeoutMs = (timeoutOverrideSeconds ?? configuration.timeoutSeconds) * 1000;
  const context = {
    callbackWaitsForEmptyEventLoop: false,
    functionName: definition.operationId,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:us-east-1:000000000000:function:${definition.operationId}`,
    memoryLimitInMB: String(configuration.memoryMb),
    awsRequestId: randomUUID(),
    logGroupName: `/aws/lambda/${definition.operationId}`,
    logStreamName: 'local',
    remainingMs: timeoutMs,
  };
  const container = containerFor(rootDir, definition, local, configuration);
  container.inFlight += 1;
  let timer: NodeJS.Timeout | undefined;
  const expiry = (ms: number) =>
    new Promise<'timeout'>((resolveTimeout) => {
      clearTimeout(timer);
      timer = setTimeout(() => resolveTimeout('timeout'), ms);
    });
  try {
    // A cold start loads the module first; the function's timeout counts from the invocation on.
    const initFailure = await Promise.race([container.initialized, expiry(INIT_TIMEOUT_MS)]);
    if (initFailure !== undefined) {
      await container.stop('init failed');
      return failed('init', `failed to initialise: ${initFailure}`);
    }
    const timedOut = expiry(timeoutMs);
    const reply = await Promise.race([container.invoke(event, context), timedOut]);
    if (reply === 'timeout') {
      await container.stop('timed out');
      return failed('timeout', `timed out after ${timeoutMs} ms; its worker is stopped`);
    }
    if (reply.error !== undefined) return failed('error', `failed: ${reply.error}`, reply);
    return { returned: true, result: reply.result, usage: reply.usage ?? noUsage, iamMs: reply.iamMs ?? 0 };
  } finally {
    clearTimeout(timer);
    container.inFlight -= 1;
  }
}

/**
 * Invoke a route's function, then shape the result the way API Gateway does for payload 2.0: what
 * the function throws becomes a bare 500, a timeout a 503, and a response over Lambda's 6 MB
 * payload limit a 502.
 */
export async function invokeRoute(
  rootDir: string,
  route: FunctionDefinition,
  event: APIGatewayProxyEventV2,
  /** Instead of the template's timeout (tests of stalls). */
  timeoutOverrideSeconds?: number,
): Promise<Invocation> {
  const outcome = await invokeFunction(rootDir, route, event, timeoutOverrideSeconds);
  const { usage, iamMs } = outcome;
  if (outcome.returned) return { response: toHttpResponse(outcome.result), usage, iamMs };
  const response =
    outcome.failure === 'timeout'
      ? gatewayError(503, 'Service Unavailable')
      : gatewayError(500, 'Internal Server Error');
  return { response, usage, iamMs };
}

/** Payload 2.0 response rules: a result without statusCode is a 200 with the result as JSON. */
export function toHttpResponse(result: unknown): HttpResponse {
  if (JSON.stringify(result ?? null).length > MAX_LAMBDA_PAYLOAD_BYTES)
    return gatewayError(502, 'Internal Server Error');
  if (result && typeof result === 'object' && 'statusCode' in result) {
    const { statusCode, headers, cookies, body, isBase64Encoded } = result as {
      statusCode: number;
      headers?: Record<string, string | number | boolean>;
      cookies?: string[];
      body?: string;
      isBase64Encoded?: boolean;
    };
    const outHeaders: Record<string, string | string[]> = {};
    for (const [name, value] of Object.entries(headers ?? {})) outHeaders[name.toLowerCase()] = String(value);
    if (cookies?.length) outHeaders['set-cookie'] = cookies;
    const bytes =
      body === undefined ? Buffer.alloc(0) : Buffer.from(body, isBase64Encoded ? 'base64' : 'utf8');
    return { statusCode, headers: outHeaders, body: bytes };
  }
  return {
    statusCode: 200,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify(result ?? null)),
  };
}

/** The bare `{"message": …}` bodies API Gateway itself answers with. */
export function gatewayError(statusCode: number, message: string): HttpResponse {
  return {
    statusCode,
    headers: { 'content-type': 'application/json' },
    body: Buffer.from(JSON.stringify({ message })),
  };
}
