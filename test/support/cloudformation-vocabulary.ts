import type { Json } from './cdk-app.ts';

/**
 * What CloudFormation itself defines, whatever the resource: the keys a resource may have, the
 * pseudo parameters, the intrinsic functions and what they return. Read by template-lint.ts.
 */
export const RESOURCE_KEYS = new Set([
  'Type',
  'Properties',
  'DependsOn',
  'Condition',
  'Metadata',
  'DeletionPolicy',
  'UpdateReplacePolicy',
  'UpdatePolicy',
  'CreationPolicy',
]);

export const PSEUDO_PARAMETERS = new Set([
  'AWS::AccountId',
  'AWS::NotificationARNs',
  'AWS::NoValue',
  'AWS::Partition',
  'AWS::Region',
  'AWS::StackId',
  'AWS::StackName',
  'AWS::URLSuffix',
]);

export const FUNCTIONS = new Set([
  'Ref',
  'Fn::And',
  'Fn::Base64',
  'Fn::Cidr',
  'Fn::Contains',
  'Fn::EachMemberEquals',
  'Fn::EachMemberIn',
  'Fn::Equals',
  'Fn::FindInMap',
  'Fn::GetAZs',
  'Fn::GetAtt',
  'Fn::If',
  'Fn::ImportValue',
  'Fn::Join',
  'Fn::Length',
  'Fn::Not',
  'Fn::Or',
  'Fn::RefAll',
  'Fn::Select',
  'Fn::Split',
  'Fn::Sub',
  'Fn::ToJsonString',
  'Fn::Transform',
  'Fn::ValueOf',
  'Fn::ValueOfAll',
]);

/** Functions whose result is always a string, and those whose result is always a list. */
export const STRING_FUNCTIONS = new Set(['Fn::Base64', 'Fn::Join', 'Fn::Sub', 'Fn::ToJsonString']);
export const LIST_FUNCTIONS = new Set(['Fn::Cidr', 'Fn::GetAZs', 'Fn::Split']);

/** Custom resources take whatever properties their provider reads. */
export const isCustomResource = (type: string) =>
  type.startsWith('Custom::') || type === 'AWS::CloudFormation::CustomResource';

export const isPlainObject = (value: Json): value is Record<string, Json> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** `{ "Ref": … }` or `{ "Fn::…": … }`: one key, naming a function. */
export const intrinsicName = (value: Json): string | undefined => {
  if (!isPlainObject(value)) return undefined;
  const keys = Object.keys(value);
  if (keys.length !== 1) return undefined;
  const [key] = keys as [string];
  return key === 'Ref' || key.startsWith('Fn::') ? key : undefined;
};

export const kindOf = (value: Json): string => {
  if (Array.isArray(value)) return 'a list';
  if (value === null) return 'null';
  if (isPlainObject(value)) return 'an object';
  return `the ${typeof value} ${JSON.stringify(value)}`;
};

export const isNoValue = (value: Json) => isPlainObject(value) && value.Ref === 'AWS::NoValue';
