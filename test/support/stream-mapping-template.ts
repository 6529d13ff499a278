import type { TemplateJson, TemplateSet } from '../../infra/local/iam/template-resolver.ts';

/**
 * A hand-written template of a function and its event source mapping on the table's stream, as CDK
 * writes them (FunctionName by Ref, EventSourceArn by GetAtt StreamArn, each filter's Pattern a
 * JSON string): what the stream poller reads its settings from.
 */
export const CHANGE_EVENT_PATTERNS = [
  { eventName: ['INSERT'], dynamodb: { Keys: { sk: { S: [{ prefix: 'HISTORY#' }] } } } },
  { eventName: ['INSERT'], dynamodb: { Keys: { sk: { S: [{ prefix: 'OUTBOX#' }] } } } },
];

export function streamMappingTemplate(
  mapping: {
    functionName?: string;
    patterns?: object[];
    batchSize?: number;
    maximumRetryAttempts?: number;
    bisect?: boolean;
    reportBatchItemFailures?: boolean;
    startingPosition?: 'TRIM_HORIZON' | 'LATEST';
  } = {},
): TemplateSet {
  const template: TemplateJson = {
    Resources: {
      Table: { Type: 'AWS::DynamoDB::Table', Properties: {} },
      PublisherFunctionABCD1234: {
        Type: 'AWS::Lambda::Function',
        Properties: { FunctionName: `bp-local-${mapping.functionName ?? 'PublishEvents'}`, Timeout: 30 },
      },
      PublisherDeadLetters0A1B2C3D: { Type: 'AWS::SQS::Queue', Properties: {} },
      PublisherStreamMapping1A2B3C4D: {
        Type: 'AWS::Lambda::EventSourceMapping',
        Properties: {
          FunctionName: { Ref: 'PublisherFunctionABCD1234' },
          EventSourceArn: { 'Fn::GetAtt': ['Table', 'StreamArn'] },
          StartingPosition: mapping.startingPosition ?? 'TRIM_HORIZON',
          BatchSize: mapping.batchSize ?? 100,
          MaximumRetryAttempts: mapping.maximumRetryAttempts ?? 5,
          BisectBatchOnFunctionError: mapping.bisect ?? true,
          ...(mapping.reportBatchItemFailures === false
            ? {}
            : { FunctionResponseTypes: ['ReportBatchItemFailures'] }),
          FilterCriteria: {
            Filters: (mapping.patterns ?? CHANGE_EVENT_PATTERNS).map((pattern) => ({
              Pattern: JSON.stringify(pattern),
            })),
          },
          DestinationConfig: {
            OnFailure: { Destination: { 'Fn::GetAtt': ['PublisherDeadLetters0A1B2C3D', 'Arn'] } },
          },
        },
      },
      OtherQueueMapping: {
        Type: 'AWS::Lambda::EventSourceMapping',
        Properties: {
          FunctionName: { Ref: 'PublisherFunctionABCD1234' },
          EventSourceArn: { 'Fn::GetAtt': ['PublisherDeadLetters0A1B2C3D', 'Arn'] },
        },
      },
    },
  };
  return new Map([['BusinessPlatform-local-Events', template]]);
}
