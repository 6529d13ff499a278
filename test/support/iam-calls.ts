import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { IamRequest, SdkCall } from '../../infra/local/iam/iam-request.ts';
import { LOCAL_ACCOUNT } from '../../infra/local/iam/local-account.ts';

/** Options any SDK client of these tests takes: nothing is sent, so no endpoint is reached. */
export const OFFLINE_CLIENT = {
  region: LOCAL_ACCOUNT.region,
  credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
  endpoint: 'http://127.0.0.1:9',
};

class Captured extends Error {
  constructor(readonly call: SdkCall) {
    super('captured');
  }
}

/** Any SDK v3 client: each types its middleware stack by its own commands. */
interface AnyClient {
  middlewareStack: { add(...args: never[]): void };
  send(...args: never[]): Promise<unknown>;
}

type UntypedStack = { add(middleware: unknown, options: { step: string; name: string }): void };

/**
 * One call as a middleware of `client` sees it at `step` (what the harness's middleware will be
 * given), caught there and never sent: `initialize` sees a document client's plain input, `build`
 * the marshalled one.
 */
export async function sentCall(
  client: AnyClient,
  command: unknown,
  step: 'initialize' | 'build' = 'initialize',
  send: (command: never) => Promise<unknown> = (sent) => client.send(sent as never),
): Promise<SdkCall> {
  const name = `capture-${step}-${Math.random()}`;
  (client.middlewareStack as unknown as UntypedStack).add(
    (_next: unknown, context: { clientName: string; commandName: string }) =>
      async (args: { input: unknown }) => {
        throw new Captured({
          clientName: context.clientName,
          commandName: context.commandName,
          input: args.input,
        });
      },
    { step, name },
  );
  try {
    await send(command as never);
  } catch (error) {
    if (error instanceof Captured) return error.call;
    throw error;
  }
  throw new Error('the call was not captured');
}

/**
 * The request checked against the Service Authorization Reference (iam-simulate's validation,
 * with a policy that allows everything): the action exists, the ARN is of a resource type the
 * action takes, and every condition key is one the action defines. Returns that resource type and
 * the keys the reference does not list for the action (none, for a right mapping).
 */
export async function referenceCheck(request: IamRequest) {
  const result = await runSimulation(
    {
      request: {
        principal: `arn:aws:sts::${LOCAL_ACCOUNT.accountId}:assumed-role/test/test`,
        action: request.action,
        resource: { resource: request.resource, accountId: LOCAL_ACCOUNT.accountId },
        contextVariables: request.context,
      },
      identityPolicies: [
        {
          name: 'all',
          policy: { Version: '2012-10-17', Statement: [{ Effect: 'Allow', Action: '*', Resource: '*' }] },
        },
      ],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
    },
    {},
  );
  if (result.resultType !== 'single') return { error: JSON.stringify(result) };
  return {
    decision: result.overallResult,
    resourceType: result.result.resourceType,
    ignoredKeys: result.result.ignoredContextKeys ?? [],
  };
}
