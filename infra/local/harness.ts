import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import { consoleOrigins } from '#lib/http/cors.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { allBundleFiles, writeBundleFiles } from '../bundle-files.ts';
import { buildOpenApiDocument } from '../openapi.ts';
import { withParameterExamples } from '../openapi-guide.ts';
import { localConsoleUrl, prepareDevConsole } from './dev-console.ts';
import { ISSUER_PATH, LOCAL_AUDIENCE, LOCAL_ISSUER, loadDevIssuer, localUserId } from './dev-issuer.ts';
import { prepareReviewHost } from './dev-review-host.ts';
import { createDevSignIn } from './dev-sign-in.ts';
import {
  ensureTable,
  HarnessStartError,
  LOCAL_AWS,
  type RunningEmulator,
  startDynamoDbLocal,
  startS3,
  startSes,
} from './emulators.ts';
import { eventLogLine, LOCAL_BUS_PATH, LocalEventBus } from './events/local-bus.ts';
import { type LocalEvents, startLocalEvents } from './events/local-events.ts';
import type { ScheduleRun } from './events/local-schedule.ts';
import { type StreamConsumers, startStreamConsumers } from './events/stream-consumers.ts';
import { type Gateway, handle, notReady, send } from './gateway.ts';
import type { IamReport } from './iam/enforcer.ts';
import { localTemplates } from './iam/template-cache.ts';
import type { TemplateSet } from './iam/template-resolver.ts';
import { gatewayError, localFunctionsOf, stopFunctions, useLocalFunctions } from './lambda-runner.ts';
import { type LocalCredentials, loadLocalSecrets, writeLocalCredentials } from './local-credentials.ts';
import { LOCAL_PHOTOS_BUCKET, LOCAL_SES_SENDER, LOCAL_TABLE_NAME } from './local-names.ts';
import { refuseForeignHost } from './loopback-host.ts';
import type { SeedRecord } from './seed.ts';
import { acquireStackLock, describeRunningStack } from './stack-lock.ts';

// The headers the local stack adds to every function's answer (defined beside the code that sets them).
export {
  DYNAMO_AUTH_CALLS_HEADER,
  DYNAMO_CALLS_HEADER,
  DYNAMO_CAPACITY_HEADER,
  DYNAMO_ROUND_TRIPS_HEADER,
  DYNAMO_UNITS_HEADER,
} from './gateway.ts';
export { LOCAL_PHOTOS_BUCKET, LOCAL_SES_SENDER, LOCAL_TABLE_NAME } from './local-names.ts';
/** Present in the state folder while a stack is running; see infra/local/cli/running-stack.ts. */
export const RUNTIME_FILE = 'runtime.json';

export interface HarnessOptions {
  /** 0 picks a free port. */
  port: number;
  /** Where DynamoDB data, S3 objects, the issuer key and credentials live (`.local/`). */
  stateDir: string;
  /** Keep DynamoDB in memory and delete stateDir on stop (tests, bench). */
  ephemeral: boolean;
  /** Print one line per request. */
  logRequests: boolean;
  rootDir: string;
  /**
   * Emulators already running, used instead of starting new ones and left running on stop: a
   * test that pauses, kills or cuts off a dependency (test/integration/faults.test.ts).
   */
  emulators?: { dynamodb: RunningEmulator; s3: RunningEmulator; ses: RunningEmulator };
  /** One timeout, in seconds, for every function instead of each route's own (tests of stalls). */
  functionTimeoutSeconds?: number;
  /**
   * The synthesized templates whose policies the functions' calls are checked against, instead of
   * the current tree's (a test that narrows a route row's permissions).
   */
  templates?: TemplateSet;
  /**
   * Every local queue's visibility timeout, in seconds, instead of its template's (the webhook
   * queue's is 360 s): tests of a failed batch coming back. Also `LOCAL_QUEUE_VISIBILITY_TIMEOUT_SECONDS`.
   */
  queueVisibilityTimeoutSeconds?: number;
}

export interface RunningHarness {
  baseUrl: string;
  credentials: LocalCredentials;
  /** The environment the handlers run with (table, emulator endpoints, issuer). */
  env: Record<string, string>;
  endpoints: { dynamodb: string; s3: string; ses: string };
  tableName: string;
  stateDir: string;
  /** How the templates the policies come from were got: from the cache, or synthesized at start. */
  iam: { templatesCached: boolean; templatesMs: number };
  /** The IAM decisions made so far (calls checked, allowed, refused). */
  iamReport(): IamReport;
  /** Fire the schedule rules that invoke this function now (SweepWebhooks); resolves to their first attempts. */
  runSchedule(functionName: string): Promise<ScheduleRun[]>;
  /** Resolves once the local queues have no visible message and no batch under way. */
  queuesIdle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Start the whole service on this machine: the emulators, the table and bucket, the dev issuer,
 * demo data on first start, and an HTTP server that turns requests into API Gateway events for
 * the same handlers that run in Lambda.
 */
export async function startHarness(options: HarnessOptions): Promise<RunningHarness> {
  mkdirSync(options.stateDir, { recursive: true });
  // One stack per state folder: refuse before touching anything another stack uses.
  const lock = acquireStackLock(options.stateDir);
  if (!('release' in lock)) throw new HarnessStartError(describeRunningStack(options.stateDir, lock));
  const server = createServer();
  // Until the stack is ready, every request gets a 503 at once (never a request left hanging).
  let gateway: Gateway | undefined;
  server.on('request', (request: IncomingMessage, response: ServerResponse) => {
    const address = server.address();
    const misdirected = refuseForeignHost(
      request.headers.host,
      typeof address === 'object' && address ? address.address : '127.0.0.1',
    );
    if (misdirected) {
      request.resume();
      send(response, misdirected);
      return;
    }
    if (!gateway) {
      request.resume();
      send(response, notReady());
      return;
    }
    const ready = gateway;
    const startedAt = Date.now();
    handle(request, ready)
      .then((result) => send(response, result))
      .catch((error: unknown) => {
        console.error('[harness] request failed', error);
        send(response, gatewayError(500, 'Internal Server Error'));
      })
      .finally(() => {
        if (options.logRequests) {
          console.log(
            `${request.method} ${request.url} → ${response.statusCode} (${Date.now() - startedAt} ms)`,
          );
        }
      });
  });
  const started: RunningEmulator[] = [];
  // The local EventBridge bus (events/local-bus.ts): the terminal's request log names each event.
  // Each event goes on to the rules of the templates that match it (events/local-events.ts).
  let localEvents: LocalEvents | undefined;
  const bus = new LocalEventBus((event) => {
    if (options.logRequests) console.log(eventLogLine(event));
    localEvents?.route(event);
  });
  let streamConsumers: StreamConsumers | undefined;
  const runtimeFile = join(options.stateDir, RUNTIME_FILE);
  const stop = async () => {
    rmSync(runtimeFile, { force: true });
    await new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
    // No new batches or scheduled runs from here; those under way end when their function's
    // worker is stopped (messages still in the local queues are lost with them).
    const consumersStopped = Promise.all([streamConsumers?.stop(), localEvents?.stop()]);
    await stopFunctions();
    await consumersStopped;
    await Promise.allSettled(started.map((emulator) => emulator.stop()));
    lock.release();
    if (options.ephemeral) rmSync(options.stateDir, { recursive: true, force: true });
  };

  try {
    const baseUrl = await listen(server, options.port);
    lock.setUrl(baseUrl);
    // The templates every function's role and configuration come from (docs/harness.md, 'IAM
    // enforcement', 'One configuration'): from the synth cache, or synthesized while the emulators start.
    const synth = options.templates
      ? Promise.resolve({ templates: options.templates, cached: true, ms: 0 })
      : localTemplates();
    synth.catch(() => undefined); // awaited below; an emulator failing first must not leave it unhandled
    // allSettled, not all: when one emulator fails, the others must still be known so stop() ends them.
    const { dynamodb, s3, ses } = options.emulators ?? (await startEmulators(options, started));
    const { templates, cached: templatesCached, ms: templatesMs } = await synth;
    await ensureTable(dynamodb.endpoint, LOCAL_TABLE_NAME);

    // The keys the state folder keeps across restarts (local-credentials.ts), made on the first start.
    const secrets = await loadLocalSecrets(options.stateDir);

    // Files the functions' bundles carry beside their code (infra/bundle-files.ts), built from
    // source at every start by the writer CDK runs; functions find them in LAMBDA_TASK_ROOT, as in Lambda.
    const taskRoot = join(options.stateDir, 'task-root');
    await writeBundleFiles(taskRoot, allBundleFiles());

    const issuer = await loadDevIssuer(options.stateDir);
    // Handlers and lib/ read their configuration from the environment when they load, as in Lambda.
    const env: Record<string, string> = {
      LAMBDA_TASK_ROOT: taskRoot,
      AWS_REGION: LOCAL_AWS.region,
      AWS_ACCESS_KEY_ID: LOCAL_AWS.credentials.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_AWS.credentials.secretAccessKey,
      TABLE_NAME: LOCAL_TABLE_NAME,
      PHOTOS_BUCKET: LOCAL_PHOTOS_BUCKET,
      DYNAMODB_ENDPOINT: dynamodb.endpoint,
      S3_ENDPOINT: s3.endpoint,
      SES_ENDPOINT: ses.endpoint,
      JWT_ISSUER: LOCAL_ISSUER,
      JWT_AUDIENCE: LOCAL_AUDIENCE,
      // The dev issuer's public keys, as a deployment gives the user pool's (infra/console-key-set.ts);
      // a token naming another key is still looked up at JWKS_URL.
      JWT_KEY_SET: JSON.stringify(issuer.jwks),
      JWKS_URL: `${baseUrl}${ISSUER_PATH}/.well-known/jwks.json`,
      // Two keys are accepted, as in AWS while a key is rotated (current, previous).
      INTERNAL_API_KEYS: `${secrets.internalApiKey},${secrets.previousInternalApiKey}`,
      SES_SENDER: LOCAL_SES_SENDER,
      // Sent as in AWS; aws-ses-v2-local accepts the parameter and keeps no metrics.
      SES_CONFIGURATION_SET: 'business-platform-local',
      CONSOLE_URL: localConsoleUrl(baseUrl),
      // The authorization server's issuer is the public base URL; locally, the harness's.
      OAUTH_ISSUER: baseUrl,
      // Read on every use, so that `npm run oauth-keys -- rotate` reaches the running functions.
      OAUTH_SIGNING_KEY_FILE: secrets.oauthKeyFile,
      CURSOR_SECRET: secrets.cursorSecret,
      // Tests let the SSRF guard reach their own loopback servers (client metadata documents);
      // production never sets it.
      ...(process.env.SAFE_FETCH_ALLOW ? { SAFE_FETCH_ALLOW: process.env.SAFE_FETCH_ALLOW } : {}),
      // A receiver on http://127.0.0.1:<port> may subscribe to webhooks locally (lib/webhooks/endpoint.ts);
      // every other internal address stays refused. AWS never sets it.
      WEBHOOKS_ALLOW_LOOPBACK_HTTP: 'true',
      // Tests shorten access tokens to see clients refresh them.
      ...(process.env.OAUTH_ACCESS_TOKEN_SECONDS
        ? { OAUTH_ACCESS_TOKEN_SECONDS: process.env.OAUTH_ACCESS_TOKEN_SECONDS }
        : {}),
      // The MCP Inspector's page may call the local tool server.
      MCP_ALLOWED_ORIGINS: 'http://localhost:6274,http://127.0.0.1:6274',
      // The SDK's own variable for EventBridge's endpoint: the publisher's client reaches the local bus.
      AWS_ENDPOINT_URL_EVENTBRIDGE: `${baseUrl}${LOCAL_BUS_PATH}`,
    };
    Object.assign(process.env, env);
    // Each function runs with its template's role and environment, the stand-ins taken from env.
    const functions = localFunctionsOf(templates, env);
    for (const [name, configuration] of functions.configurations) {
      for (const missing of configuration.unresolved) {
        console.warn(`[harness] ${name}: ${missing}; the variable is left out of its environment`);
      }
    }
    await functions.enforcer.warm();
    useLocalFunctions(functions);

    // Publish the signing key before anything verifies a token (the token endpoint would on its
    // first token; a test may sign one with the key file first).
    const { ensureSigningKeyPublished } = await import('#lib/oauth/signing-key.ts');
    await ensureSigningKeyPublished();

    const seed = await secrets.seed();
    const credentials = await writeLocalCredentials(options.stateDir, issuer, seed, {
      baseUrl,
      internalApiKey: secrets.internalApiKey,
      sesWebUrl: ses.endpoint,
    });
    // Tells the CLIs (invoke, agent-key, …) where this running stack's emulators are.
    writeFileSync(runtimeFile, JSON.stringify({ baseUrl, env }, null, 2), { mode: 0o600 });

    // The docs page's document carries the demo ids as parameter examples, so "Try it out" just works.
    const docsOpenApi = JSON.stringify(
      withParameterExamples(buildOpenApiDocument(routeTable, baseUrl), demoParameterExamples(seed)),
    );
    const jwks = JSON.stringify(issuer.jwks);
    // The templates' rules, queues and schedules (webhook deliveries and the sweep), before the
    // gateway takes requests, so that no event reaches the bus before its rules are there.
    const events = startLocalEvents({
      templates,
      rootDir: options.rootDir,
      ...(options.queueVisibilityTimeoutSeconds === undefined
        ? {}
        : { visibilityTimeoutSeconds: options.queueVisibilityTimeoutSeconds }),
    });
    localEvents = events;
    gateway = {
      rootDir: options.rootDir,
      docsOpenApi,
      jwks,
      baseUrl,
      devConsole: await prepareDevConsole({ stateDir: options.stateDir, baseUrl, issuer }),
      reviewHost: await prepareReviewHost(baseUrl),
      devSignIn: createDevSignIn({ issuer, seed, consoleUrl: localConsoleUrl(baseUrl) }),
      // As context `consoleOrigins` in AWS: CONSOLE_ORIGINS, else the console pages' origin.
      consoleOrigins: consoleOrigins(process.env.CONSOLE_ORIGINS || undefined, env.CONSOLE_URL ?? baseUrl),
      functionTimeoutSeconds: options.functionTimeoutSeconds,
      bus,
      events,
    };
    // The table's stream, read as Lambda reads it for each event source mapping in the templates,
    // once the gateway takes requests (the publisher puts its events on the bus through it).
    streamConsumers = await startStreamConsumers({
      templates,
      endpoint: dynamodb.endpoint,
      tableName: LOCAL_TABLE_NAME,
      rootDir: options.rootDir,
      stateDir: options.stateDir,
      ephemeral: options.ephemeral,
    });

    return {
      baseUrl,
      credentials,
      env,
      endpoints: { dynamodb: dynamodb.endpoint, s3: s3.endpoint, ses: ses.endpoint },
      tableName: LOCAL_TABLE_NAME,
      stateDir: options.stateDir,
      iam: { templatesCached, templatesMs: Math.round(templatesMs) },
      iamReport: () => functions.enforcer.report(),
      runSchedule: (functionName) => events.runSchedule(functionName),
      queuesIdle: () => events.idle(),
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/** Path and query parameter examples: the first demo business, its records and photos, its owner. */
function demoParameterExamples(seed: SeedRecord): Record<string, string> {
  const business = seed.businesses[0];
  return {
    ...(business ? { business_id: business.id, user_id: localUserId(business.members.owner) } : {}),
    ...seed.demo_ids,
    entity: 'profile',
    record_id: 'profile',
    industry_id: 'bakery',
  };
}

async function startEmulators(options: HarnessOptions, started: RunningEmulator[]) {
  const emulators = await Promise.allSettled([
    startDynamoDbLocal(options.ephemeral ? undefined : join(options.stateDir, 'dynamodb')),
    startS3(join(options.stateDir, 's3'), [LOCAL_PHOTOS_BUCKET]),
    startSes(),
  ]);
  for (const result of emulators) if (result.status === 'fulfilled') started.push(result.value);
  const failed = emulators.find((result) => result.status === 'rejected');
  if (failed) throw failed.reason;
  const [dynamodb, s3, ses] = started as [RunningEmulator, RunningEmulator, RunningEmulator];
  return { dynamodb, s3, ses };
}

function listen(server: Server, port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => {
      reject(
        error.code === 'EADDRINUSE'
          ? new HarnessStartError(`Port ${port} is already in use; pass --port or set PORT to another port`)
          : error,
      );
    });
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      resolve(`http://127.0.0.1:${typeof address === 'object' && address ? address.port : port}`);
    });
  });
}
