import { functionNamePrefix } from '../../function-name.ts';
import { localTemplateResolver } from '../iam/local-account.ts';
import type { Json, TemplateSet } from '../iam/template-resolver.ts';
import { LOCAL_STAGE } from '../local-names.ts';
import { compileFilterPattern, type FilterPattern } from './filter-rules.ts';

/**
 * The event source mappings on the table's stream, as the synthesized templates deploy them
 * (`AWS::Lambda::EventSourceMapping`): which function, in batches of how many records, filtered
 * how, retried how often. The local stream poller (stream-poller.ts) delivers records by these,
 * so a mapping's settings are exercised locally as they are in AWS.
 */
export interface StreamMapping {
  /** The function's local name (as in the runner: its name without the stage's prefix). */
  functionName: string;
  batchSize: number;
  filters: FilterPattern[];
  startingPosition: 'TRIM_HORIZON' | 'LATEST';
  /** Retries of a failing batch before it goes to the on-failure destination; -1: until it expires. */
  maximumRetryAttempts: number;
  bisectBatchOnFunctionError: boolean;
  /** `ReportBatchItemFailures`: the function's batchItemFailures answer is honoured. */
  reportBatchItemFailures: boolean;
  /** Where a batch that keeps failing goes in AWS (an ARN, or undefined without a destination). */
  onFailureDestination: string | undefined;
}

/** Lambda's defaults for a DynamoDB stream mapping. */
const DEFAULT_BATCH_SIZE = 100;
const DEFAULT_MAXIMUM_RETRY_ATTEMPTS = -1;

/** Every mapping whose source is a DynamoDB table's stream, in the order the templates list them. */
export function tableStreamMappings(templates: TemplateSet): StreamMapping[] {
  const resolver = localTemplateResolver(templates);
  const prefix = functionNamePrefix(LOCAL_STAGE);
  const mappings: StreamMapping[] = [];
  for (const [stack, template] of templates) {
    for (const [logicalId, resource] of Object.entries(template.Resources ?? {})) {
      if (resource.Type !== 'AWS::Lambda::EventSourceMapping') continue;
      const properties = resource.Properties ?? {};
      if (!isTableStream(resolver, stack, properties.EventSourceArn)) continue;
      const where = `${stack} ${logicalId}`;
      const named = String(resolver.resolve(stack, properties.FunctionName));
      // FunctionName may be a name or an ARN (`…:function:<name>`, with or without a qualifier).
      const functionName = named.includes(':function:') ? (named.split(':function:')[1] ?? '') : named;
      const unqualified = functionName.split(':')[0] ?? functionName;
      if (!unqualified.startsWith(prefix))
        throw new Error(`${where}: ${unqualified} is not a function of the stage`);
      const destination = properties.DestinationConfig?.OnFailure?.Destination;
      mappings.push({
        functionName: unqualified.slice(prefix.length),
        batchSize: Number(properties.BatchSize ?? DEFAULT_BATCH_SIZE),
        filters: ((properties.FilterCriteria?.Filters ?? []) as { Pattern: Json }[]).map((filter) =>
          compileFilterPattern(
            typeof filter.Pattern === 'string'
              ? filter.Pattern
              : String(resolver.resolve(stack, filter.Pattern)),
          ),
        ),
        startingPosition: properties.StartingPosition === 'LATEST' ? 'LATEST' : 'TRIM_HORIZON',
        maximumRetryAttempts: Number(properties.MaximumRetryAttempts ?? DEFAULT_MAXIMUM_RETRY_ATTEMPTS),
        bisectBatchOnFunctionError: properties.BisectBatchOnFunctionError === true,
        reportBatchItemFailures: ((properties.FunctionResponseTypes ?? []) as string[]).includes(
          'ReportBatchItemFailures',
        ),
        onFailureDestination:
          destination === undefined ? undefined : describeDestination(resolver, stack, destination),
      });
    }
  }
  return mappings;
}

/**
 * Whether a mapping's source is a table's stream: `Fn::GetAtt [<table>, StreamArn]`, or a value that
 * reaches one through another stack (an import, a parameter: resolved, it is a stream ARN), or a
 * literal stream ARN. The local stack has one table, so which table is not asked.
 */
function isTableStream(
  resolver: ReturnType<typeof localTemplateResolver>,
  stack: string,
  source: Json,
): boolean {
  try {
    if (/:dynamodb:.*\/stream\//.test(String(resolver.resolve(stack, source)))) return true;
  } catch {
    // Not resolvable locally: judged by what it names.
  }
  const text = JSON.stringify(source ?? null);
  return text.includes('StreamArn') || /:dynamodb:[^"]*\/stream\//.test(text);
}

function describeDestination(
  resolver: ReturnType<typeof localTemplateResolver>,
  stack: string,
  destination: Json,
): string {
  try {
    return String(resolver.resolve(stack, destination));
  } catch {
    return JSON.stringify(destination);
  }
}
