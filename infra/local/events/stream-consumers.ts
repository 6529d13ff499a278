import { join } from 'node:path';
import type { TemplateSet } from '../iam/template-resolver.ts';
import { type FunctionDefinition, invokeFunction } from '../lambda-runner.ts';
import { fileCheckpoints, memoryCheckpoints } from './stream-checkpoint.ts';
import { tableStreamMappings } from './stream-mapping.ts';
import { StreamPoller } from './stream-poller.ts';

/**
 * The handler file of each function the templates map to the table's stream (by its local name).
 * The templates name the function but not its source (they are synthesized without bundling).
 */
export const STREAM_FUNCTION_HANDLERS: Readonly<Record<string, string>> = {
  PublishEvents: 'functions/events/publish-events.ts',
};

/** The file in `.local/` that keeps the pollers' checkpoints across restarts. */
const CHECKPOINT_FILE = 'stream-checkpoints.json';

export interface StreamConsumers {
  pollers: StreamPoller[];
  /** Stop polling; resolves once each poll under way has ended (stop the functions meanwhile). */
  stop(): Promise<void>;
}

/**
 * One poller per event source mapping on the table's stream, each invoking its function through
 * the runner (lambda-runner.ts), so that the function runs with its template's role, environment
 * and timeout, as every route's function does.
 */
export async function startStreamConsumers(options: {
  templates: TemplateSet;
  endpoint: string;
  tableName: string;
  rootDir: string;
  stateDir: string;
  ephemeral: boolean;
  /** Function definitions by local name, instead of STREAM_FUNCTION_HANDLERS (a test's stand-in). */
  functions?: Readonly<Record<string, FunctionDefinition>>;
}): Promise<StreamConsumers> {
  const checkpoints = options.ephemeral
    ? memoryCheckpoints()
    : fileCheckpoints(join(options.stateDir, CHECKPOINT_FILE));
  const pollers: StreamPoller[] = [];
  for (const mapping of tableStreamMappings(options.templates)) {
    const handler = STREAM_FUNCTION_HANDLERS[mapping.functionName];
    const definition =
      options.functions?.[mapping.functionName] ??
      (handler ? { operationId: mapping.functionName, handler } : undefined);
    if (!definition) {
      console.warn(
        `[events] the templates map the table's stream to ${mapping.functionName}, whose handler file the harness does not know (infra/local/events/stream-consumers.ts); its records are not delivered locally`,
      );
      continue;
    }
    const poller = new StreamPoller({
      endpoint: options.endpoint,
      tableName: options.tableName,
      mapping,
      checkpoints,
      deliver: async (event) => {
        const outcome = await invokeFunction(options.rootDir, definition, event);
        return outcome.returned
          ? { returned: true, result: outcome.result }
          : { returned: false, message: outcome.message };
      },
    });
    pollers.push(poller);
  }
  const stop = async () => {
    await Promise.all(pollers.map((poller) => poller.stop()));
  };
  try {
    for (const poller of pollers) await poller.start();
  } catch (error) {
    await stop();
    throw error;
  }
  return { pollers, stop };
}
