import {
  type CallScope,
  definedKeys,
  type IamRequest,
  inputRecord,
  requiredString,
  type SdkCall,
} from './iam-request.ts';

/**
 * Secrets Manager authorizes each call on the secret's full ARN (with its six-character suffix),
 * whether the call names the secret by name or by ARN; its AccessDenied message names the secret
 * as the call did. Condition keys: secretsmanager:SecretId (as given), and for reads the version
 * asked for (secretsmanager:VersionId, secretsmanager:VersionStage).
 */

type Input = Record<string, unknown>;

const text = (input: Input, member: string): string | undefined =>
  typeof input[member] === 'string' && input[member] !== '' ? (input[member] as string) : undefined;

function secretRequest(
  scope: CallScope,
  call: SdkCall,
  input: Input,
  action: string,
  version: boolean,
): IamRequest {
  const secretId = requiredString(call, input, 'SecretId');
  return {
    action: `secretsmanager:${action}`,
    resource: scope.secretArn(secretId),
    namedInMessage: secretId,
    context: definedKeys({
      'secretsmanager:SecretId': secretId,
      'secretsmanager:VersionId': version ? text(input, 'VersionId') : undefined,
      'secretsmanager:VersionStage': version ? text(input, 'VersionStage') : undefined,
    }),
  };
}

const SECRETS_MANAGER_COMMANDS: Record<
  string,
  (scope: CallScope, call: SdkCall, input: Input) => IamRequest
> = {
  GetSecretValueCommand: (scope, call, input) => secretRequest(scope, call, input, 'GetSecretValue', true),
  DescribeSecretCommand: (scope, call, input) => secretRequest(scope, call, input, 'DescribeSecret', false),
  PutSecretValueCommand: (scope, call, input) => secretRequest(scope, call, input, 'PutSecretValue', false),
};

/** The Secrets Manager commands mapped here. */
export const SECRETS_MANAGER_COMMAND_NAMES = Object.keys(SECRETS_MANAGER_COMMANDS);

/** The authorization of one Secrets Manager call, or undefined for a command not mapped. */
export function secretsManagerRequests(call: SdkCall, scope: CallScope): IamRequest[] | undefined {
  const map = SECRETS_MANAGER_COMMANDS[call.commandName];
  return map ? [map(scope, call, inputRecord(call))] : undefined;
}
