import {
  type CallScope,
  type IamRequest,
  inputRecord,
  regionalArn,
  requiredString,
  type SdkCall,
} from './iam-request.ts';

/**
 * The Cognito user pool administration calls a function may make with its role: each is
 * `cognito-idp:<operation>` on the pool's ARN (`userpool/<pool id>`), with no condition keys of
 * the service's own. The calls a person makes with their own tokens (sign-in, sign-up) are not
 * IAM-authorized and have no mapping.
 */
const COGNITO_COMMANDS = [
  'AdminGetUser',
  'AdminUpdateUserAttributes',
  'AdminDisableUser',
  'AdminEnableUser',
  'AdminUserGlobalSignOut',
  'ListUsers',
] as const;

/** The Cognito commands mapped here. */
export const COGNITO_COMMAND_NAMES = COGNITO_COMMANDS.map((operation) => `${operation}Command`);

/** The authorization of one Cognito user pool call, or undefined for a command not mapped. */
export function cognitoRequests(call: SdkCall, scope: CallScope): IamRequest[] | undefined {
  const operation = COGNITO_COMMANDS.find((name) => `${name}Command` === call.commandName);
  if (!operation) return undefined;
  const pool = requiredString(call, inputRecord(call), 'UserPoolId');
  // A pool id starts with its region (`eu-west-1_AbC123`), and the pool's ARN is in that region.
  const region = /^([a-z]{2}(?:-[a-z]+)+-\d)_/.exec(pool)?.[1] ?? scope.account.region;
  return [
    {
      action: `cognito-idp:${operation}`,
      resource: regionalArn({ ...scope.account, region }, 'cognito-idp', `userpool/${pool}`),
      context: {},
    },
  ];
}
