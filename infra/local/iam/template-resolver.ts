import { type LocalAccount, regionalArn } from './iam-request.ts';
import { localSecretArn } from './local-account.ts';

/**
 * A synthesized CloudFormation template set read as deployed into the local account: pseudo
 * parameters, `Ref`, `Fn::GetAtt`, `Fn::Join`, `Fn::Sub`, `Fn::Select`, `Fn::Split`, `Fn::If`,
 * `Fn::ImportValue`, and the stack parameters that read an SSM parameter another stack of the set
 * publishes (infra/parameters.ts), each resolved to the value it would have there. Physical names
 * are a resource's own name property, else `<stack>-<logical id>`, else the name the caller gives
 * for the logical id's stem (its id without CDK's hash: `Table`, `Photos`) so that the local
 * emulators' names are used.
 */

// biome-ignore lint/suspicious/noExplicitAny: CloudFormation templates are untyped JSON.
export type Json = any;

export interface CfnResource {
  Type: string;
  Properties?: Record<string, Json>;
}

export interface TemplateJson {
  Resources?: Record<string, CfnResource>;
  Parameters?: Record<string, { Type: string; Default?: string }>;
  Outputs?: Record<string, { Value: Json; Export?: { Name: Json } }>;
  Conditions?: Record<string, Json>;
}

/** Each stack's template by stack name, as a synth writes them. */
export type TemplateSet = ReadonlyMap<string, TemplateJson>;

/** A value that has no local meaning (a custom resource's attribute, an unknown parameter). */
export class UnresolvableValue extends Error {
  override name = 'UnresolvableValue';
}

/** `Ref: AWS::NoValue`: the property or list item is left out. */
const NO_VALUE = Symbol('AWS::NoValue');

/** A logical id without the 8-character hash CDK appends. */
export const logicalIdStem = (logicalId: string): string => logicalId.replace(/[0-9A-F]{8}$/, '');

/** The property that holds each type's own name, when a template sets it. */
const NAME_PROPERTY: Record<string, string> = {
  'AWS::DynamoDB::Table': 'TableName',
  'AWS::DynamoDB::GlobalTable': 'TableName',
  'AWS::S3::Bucket': 'BucketName',
  'AWS::SecretsManager::Secret': 'Name',
  'AWS::Lambda::Function': 'FunctionName',
  'AWS::IAM::Role': 'RoleName',
  'AWS::IAM::ManagedPolicy': 'ManagedPolicyName',
  'AWS::Logs::LogGroup': 'LogGroupName',
  'AWS::SES::ConfigurationSet': 'Name',
  'AWS::SES::EmailIdentity': 'EmailIdentity',
  'AWS::SNS::Topic': 'TopicName',
  'AWS::SQS::Queue': 'QueueName',
  'AWS::SSM::Parameter': 'Name',
  'AWS::Events::EventBus': 'Name',
};

export class TemplateResolver {
  constructor(
    readonly templates: TemplateSet,
    readonly account: LocalAccount,
    private readonly physicalNames: Readonly<Record<string, string>> = {},
  ) {}

  resource(stack: string, logicalId: string): CfnResource {
    const found = this.templates.get(stack)?.Resources?.[logicalId];
    if (!found) throw new UnresolvableValue(`${stack} has no resource ${logicalId}`);
    return found;
  }

  /** The resource's name where it is deployed locally. */
  physicalName(stack: string, logicalId: string): string {
    const override = this.physicalNames[logicalIdStem(logicalId)];
    if (override !== undefined) return override;
    const resource = this.resource(stack, logicalId);
    const property = NAME_PROPERTY[resource.Type];
    const own = property ? resource.Properties?.[property] : undefined;
    if (own !== undefined) return String(this.resolve(stack, own));
    const generated = `${stack}-${logicalId}`;
    return resource.Type === 'AWS::S3::Bucket'
      ? generated.toLowerCase().slice(0, 63)
      : generated.slice(0, 64);
  }

  /** What `Ref` returns for the resource: its name, or for some types its ARN, id or URL. */
  ref(stack: string, logicalId: string): string {
    const { Type } = this.resource(stack, logicalId);
    const name = this.physicalName(stack, logicalId);
    if (Type === 'AWS::SecretsManager::Secret') return localSecretArn(this.account, name);
    if (Type === 'AWS::SNS::Topic' || Type === 'AWS::IAM::ManagedPolicy')
      return this.attribute(stack, logicalId, 'Arn');
    if (Type === 'AWS::SQS::Queue') return this.attribute(stack, logicalId, 'QueueUrl');
    if (Type === 'AWS::Cognito::UserPool') return `${this.account.region}_${logicalIdStem(logicalId)}`;
    return name;
  }

  /** `Fn::GetAtt` of the resource. */
  attribute(stack: string, logicalId: string, attribute: string): string {
    const { Type } = this.resource(stack, logicalId);
    const name = this.physicalName(stack, logicalId);
    const { partition, accountId } = this.account;
    const arns: Record<string, () => string> = {
      'AWS::DynamoDB::Table': () => regionalArn(this.account, 'dynamodb', `table/${name}`),
      'AWS::DynamoDB::GlobalTable': () => regionalArn(this.account, 'dynamodb', `table/${name}`),
      'AWS::S3::Bucket': () => `arn:${partition}:s3:::${name}`,
      'AWS::IAM::Role': () => `arn:${partition}:iam::${accountId}:role/${name}`,
      'AWS::IAM::ManagedPolicy': () => `arn:${partition}:iam::${accountId}:policy/${name}`,
      'AWS::Lambda::Function': () => regionalArn(this.account, 'lambda', `function:${name}`),
      'AWS::Logs::LogGroup': () => regionalArn(this.account, 'logs', `log-group:${name}:*`),
      'AWS::SNS::Topic': () => regionalArn(this.account, 'sns', name),
      'AWS::SQS::Queue': () => regionalArn(this.account, 'sqs', name),
      'AWS::Events::EventBus': () => regionalArn(this.account, 'events', `event-bus/${name}`),
      'AWS::Cognito::UserPool': () =>
        regionalArn(this.account, 'cognito-idp', `userpool/${this.ref(stack, logicalId)}`),
    };
    if (attribute === 'Arn' || attribute === 'TopicArn') {
      const arn = arns[Type];
      if (arn) return arn();
    }
    // A table's stream: DynamoDB Local labels it with the time the stream was turned on, which no
    // template knows, so locally it is any stream of the table.
    if (
      (Type === 'AWS::DynamoDB::Table' || Type === 'AWS::DynamoDB::GlobalTable') &&
      attribute === 'StreamArn'
    ) {
      return regionalArn(this.account, 'dynamodb', `table/${name}/stream/*`);
    }
    if (Type === 'AWS::SQS::Queue' && attribute === 'QueueUrl') {
      return `https://sqs.${this.account.region}.amazonaws.com/${accountId}/${name}`;
    }
    if (Type === 'AWS::SQS::Queue' && attribute === 'QueueName') return name;
    throw new UnresolvableValue(`${stack}: ${logicalId}.${attribute} (${Type}) has no local value`);
  }

  /** A stack parameter's value: the SSM parameter another stack publishes, or its default. */
  private parameter(stack: string, name: string): string {
    const parameter = this.templates.get(stack)?.Parameters?.[name];
    if (!parameter) throw new UnresolvableValue(`${stack} has no parameter or resource ${name}`);
    if (parameter.Type.startsWith('AWS::SSM::Parameter::Value')) {
      for (const [publisher, template] of this.templates) {
        for (const resource of Object.values(template.Resources ?? {})) {
          if (resource.Type === 'AWS::SSM::Parameter' && resource.Properties?.Name === parameter.Default) {
            return String(this.resolve(publisher, resource.Properties?.Value));
          }
        }
      }
      throw new UnresolvableValue(`no stack of the set publishes the SSM parameter ${parameter.Default}`);
    }
    if (parameter.Default !== undefined) return parameter.Default;
    throw new UnresolvableValue(`${stack}: parameter ${name} has no value`);
  }

  private named(stack: string, name: string): string {
    const pseudo: Record<string, string> = {
      'AWS::AccountId': this.account.accountId,
      'AWS::Region': this.account.region,
      'AWS::Partition': this.account.partition,
      'AWS::URLSuffix': 'amazonaws.com',
      'AWS::StackName': stack,
    };
    if (pseudo[name] !== undefined) return pseudo[name];
    if (this.templates.get(stack)?.Resources?.[name]) return this.ref(stack, name);
    return this.parameter(stack, name);
  }

  private exported(name: string): Json {
    for (const [stack, template] of this.templates) {
      for (const output of Object.values(template.Outputs ?? {})) {
        if (output.Export && this.resolve(stack, output.Export.Name) === name)
          return this.resolve(stack, output.Value);
      }
    }
    throw new UnresolvableValue(`no stack of the set exports ${name}`);
  }

  private condition(stack: string, value: Json): boolean {
    if (typeof value === 'string')
      return this.condition(stack, this.templates.get(stack)?.Conditions?.[value]);
    const [key] = Object.keys(value ?? {});
    const argument = value?.[key ?? ''];
    if (key === 'Fn::Equals') return this.resolve(stack, argument[0]) === this.resolve(stack, argument[1]);
    if (key === 'Fn::Not') return !this.condition(stack, argument[0]);
    if (key === 'Fn::And') return argument.every((item: Json) => this.condition(stack, item));
    if (key === 'Fn::Or') return argument.some((item: Json) => this.condition(stack, item));
    if (key === 'Condition') return this.condition(stack, argument);
    throw new UnresolvableValue(`${stack}: condition ${JSON.stringify(value)} cannot be evaluated`);
  }

  private substitute(stack: string, text: string, variables: Record<string, Json>): string {
    return text.replace(/\$\{(!?)([^}]+)\}/g, (_match, literal: string, name: string) => {
      if (literal) return `\${${name}}`;
      if (name in variables) return String(this.resolve(stack, variables[name]));
      const dot = name.indexOf('.');
      if (dot > 0 && !name.startsWith('AWS::'))
        return this.attribute(stack, name.slice(0, dot), name.slice(dot + 1));
      return this.named(stack, name);
    });
  }

  /** The value as CloudFormation would give it in the local account; throws UnresolvableValue. */
  resolve(stack: string, value: Json): Json {
    if (Array.isArray(value)) {
      return value.map((item) => this.resolve(stack, item)).filter((item) => item !== NO_VALUE);
    }
    if (value === null || typeof value !== 'object') return value;
    const keys = Object.keys(value);
    const [key] = keys;
    if (keys.length === 1 && key !== undefined && (key === 'Ref' || key.startsWith('Fn::'))) {
      const argument = value[key];
      switch (key) {
        case 'Ref':
          return argument === 'AWS::NoValue' ? NO_VALUE : this.named(stack, argument);
        case 'Fn::GetAtt': {
          const [logicalId, attribute] = typeof argument === 'string' ? argument.split(/\.(.*)/) : argument;
          return this.attribute(stack, logicalId, attribute);
        }
        case 'Fn::Join':
          return (this.resolve(stack, argument[1]) as Json[]).join(argument[0]);
        case 'Fn::Sub':
          return typeof argument === 'string'
            ? this.substitute(stack, argument, {})
            : this.substitute(stack, argument[0], argument[1] ?? {});
        case 'Fn::Select':
          return (this.resolve(stack, argument[1]) as Json[])[Number(this.resolve(stack, argument[0]))];
        case 'Fn::Split':
          return String(this.resolve(stack, argument[1])).split(argument[0]);
        case 'Fn::If':
          return this.resolve(stack, this.condition(stack, argument[0]) ? argument[1] : argument[2]);
        case 'Fn::ImportValue':
          return this.exported(String(this.resolve(stack, argument)));
        default:
          throw new UnresolvableValue(`${stack}: ${key} has no local value`);
      }
    }
    const resolved: Record<string, Json> = {};
    for (const [name, item] of Object.entries(value)) {
      const result = this.resolve(stack, item);
      if (result !== NO_VALUE) resolved[name] = result;
    }
    return resolved;
  }
}
