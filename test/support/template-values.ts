import type { Template } from 'aws-cdk-lib/assertions';
import { type ParameterKey, parameterName } from '../../infra/parameters.ts';
import type { Json } from './cdk-app.ts';

/** The account, region and partition a template is read as deployed to. */
export const DEPLOYED_AT = {
  'AWS::AccountId': '123456789012',
  'AWS::Region': 'eu-west-1',
  'AWS::Partition': 'aws',
  'AWS::URLSuffix': 'amazonaws.com',
} as const;

/**
 * A template value as CloudFormation would resolve it, for the intrinsics CDK writes into
 * strings (`Ref`, `Fn::Join`, `Fn::GetAtt`, `Fn::Sub`), given what each name stands for.
 * A name without a value throws: the test said nothing about it, so it cannot be right by chance.
 */
export function evaluate(value: Json, values: Record<string, string>): Json {
  if (Array.isArray(value)) return value.map((item) => evaluate(item, values));
  if (value === null || typeof value !== 'object') return value;
  const lookUp = (name: string): string => {
    const found = values[name];
    if (found === undefined) throw new Error(`no value given for ${name}`);
    return found;
  };
  const [key, ...others] = Object.keys(value);
  if (others.length === 0 && key !== undefined) {
    const argument = value[key];
    if (key === 'Ref') return lookUp(argument);
    if (key === 'Fn::GetAtt') return lookUp(argument.join('.'));
    if (key === 'Fn::Join') return evaluate(argument[1], values).join(argument[0]);
    if (key === 'Fn::Sub' && typeof argument === 'string') {
      return argument.replace(/\$\{([^}]+)\}/g, (_, name: string) => lookUp(name));
    }
  }
  return Object.fromEntries(Object.entries(value).map(([name, item]) => [name, evaluate(item, values)]));
}

/** The pseudo parameters, and each stack parameter that reads an SSM parameter of the stage, by its value. */
export function deployedValues(
  template: Template,
  stage: string,
  parameters: Partial<Record<ParameterKey, string>>,
  others: Record<string, string> = {},
): Record<string, string> {
  const values: Record<string, string> = { ...DEPLOYED_AT, ...others };
  for (const [logicalId, parameter] of Object.entries<Json>(template.toJSON().Parameters ?? {})) {
    const key = Object.keys(parameters).find(
      (name) => parameter.Default === parameterName(stage, name as ParameterKey),
    ) as ParameterKey | undefined;
    if (key !== undefined) values[logicalId] = String(parameters[key]);
  }
  return values;
}
