import { functionNamePrefix } from '../../function-name.ts';
import { type LocalAccount, regionalArn } from './iam-request.ts';
import {
  type CfnResource,
  type Json,
  type TemplateResolver,
  type TemplateSet,
  UnresolvableValue,
} from './template-resolver.ts';

/**
 * The policies each function runs under, read from the synthesized templates as deployed into the
 * local account (docs/harness.md, 'IAM enforcement'): its role's identity policies (the
 * role's default policy, inline and managed policies), and the resource policies of what it may
 * call (bucket, secret, topic, queue, event bus). AWS-managed policies are not in a template; the two a
 * function role takes (basic execution, X-Ray) stand in as what they allow, any other is reported.
 */

export interface PolicyStatement {
  Sid?: string;
  Effect: 'Allow' | 'Deny';
  Action?: string | string[];
  NotAction?: string | string[];
  Resource?: string | string[];
  NotResource?: string | string[];
  Principal?: Json;
  NotPrincipal?: Json;
  Condition?: Record<string, Record<string, Json>>;
}

export interface PolicyDocument {
  Version: string;
  Statement: PolicyStatement[];
}

export interface FunctionPolicies {
  /** What the function does: its operation id, or a trigger's name (`PreSignUp`). */
  name: string;
  functionName: string;
  stack: string;
  roleArn: string;
  /** The role session the function runs as: `arn:aws:sts::<account>:assumed-role/<role>/<function>`. */
  principalArn: string;
  identityPolicies: { name: string; policy: PolicyDocument }[];
  /** What of its policies has no local value (a statement left out, an unknown managed policy). */
  unresolved: string[];
}

export interface ExtractedPolicies {
  account: LocalAccount;
  /** By `name` (operation id or trigger name). */
  functions: ReadonlyMap<string, FunctionPolicies>;
  /** The resource policy that governs an ARN: its bucket's policy for an object, else its own. */
  resourcePolicyFor(resourceArn: string): PolicyDocument | undefined;
  /** Every resource policy of the set. */
  resourcePolicies: PolicyDocument[];
  /** The SES identities the templates create (addresses and domains). */
  sesIdentities: string[];
}

const AWS_MANAGED_STAND_INS: Record<string, PolicyStatement[]> = {
  'service-role/AWSLambdaBasicExecutionRole': [
    {
      Effect: 'Allow',
      Action: ['logs:CreateLogGroup', 'logs:CreateLogStream', 'logs:PutLogEvents'],
      Resource: '*',
    },
  ],
  AWSXRayDaemonWriteAccess: [
    {
      Effect: 'Allow',
      Action: [
        'xray:PutTraceSegments',
        'xray:PutTelemetryRecords',
        'xray:GetSamplingRules',
        'xray:GetSamplingTargets',
        'xray:GetSamplingStatisticSummaries',
      ],
      Resource: '*',
    },
  ],
};

const list = <T>(value: T | T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** `{Ref: id}` or `{Fn::GetAtt: [id, …]}` naming a resource of the same stack: its logical id. */
function referencedId(value: Json): string | undefined {
  if (value?.Ref !== undefined) return String(value.Ref);
  const target = value?.['Fn::GetAtt'];
  if (target !== undefined) return String(Array.isArray(target) ? target[0] : target.split('.')[0]);
  return undefined;
}

/**
 * A policy document resolved in the local account. A statement whose resources or conditions
 * have no local value is left out when it allows (it allows nothing locally) and kept over every
 * resource when it denies (so it refuses more, never less); each is reported in `unresolved`.
 */
function resolveDocument(
  resolver: TemplateResolver,
  stack: string,
  document: Json,
  unresolved: string[],
  label: string,
): PolicyDocument {
  const statements: PolicyStatement[] = [];
  for (const [index, statement] of list<Json>(document?.Statement).entries()) {
    try {
      statements.push(resolver.resolve(stack, statement));
    } catch (error) {
      if (!(error instanceof UnresolvableValue)) throw error;
      unresolved.push(`${label} statement ${index + 1}: ${error.message}`);
      if (statement.Effect === 'Deny') {
        const { Resource: _resource, NotResource: _notResource, Condition: _condition, ...rest } = statement;
        statements.push({ ...resolver.resolve(stack, rest), Resource: '*' });
      }
    }
  }
  return { Version: document?.Version ?? '2012-10-17', Statement: statements };
}

/** Every policy a role has, by the name the deployed account would show. */
function rolePolicies(resolver: TemplateResolver, stack: string, roleId: string, unresolved: string[]) {
  const resources = Object.entries(resolver.templates.get(stack)?.Resources ?? {});
  const role = resolver.resource(stack, roleId);
  const attachedHere = (resource: CfnResource, property: 'Roles' | 'RoleName') =>
    list<Json>(resource.Properties?.[property]).some((item) => referencedId(item) === roleId);
  const policies: { name: string; policy: PolicyDocument }[] = [];
  for (const [logicalId, resource] of resources) {
    const attached =
      (resource.Type === 'AWS::IAM::Policy' && attachedHere(resource, 'Roles')) ||
      (resource.Type === 'AWS::IAM::ManagedPolicy' && attachedHere(resource, 'Roles')) ||
      (resource.Type === 'AWS::IAM::RolePolicy' && attachedHere(resource, 'RoleName'));
    if (!attached) continue;
    const document = resource.Properties?.PolicyDocument;
    policies.push({
      name: logicalId,
      policy: resolveDocument(resolver, stack, document, unresolved, logicalId),
    });
  }
  for (const inline of list<Json>(role.Properties?.Policies)) {
    const name = String(inline.PolicyName);
    policies.push({
      name,
      policy: resolveDocument(resolver, stack, inline.PolicyDocument, unresolved, name),
    });
  }
  for (const managed of list<Json>(role.Properties?.ManagedPolicyArns)) {
    const ownId = referencedId(managed);
    const own = ownId ? resolver.templates.get(stack)?.Resources?.[ownId] : undefined;
    if (own?.Type === 'AWS::IAM::ManagedPolicy' && ownId) {
      if (!attachedHere(own, 'Roles')) {
        const document = own.Properties?.PolicyDocument;
        policies.push({ name: ownId, policy: resolveDocument(resolver, stack, document, unresolved, ownId) });
      }
      continue;
    }
    const arn = String(resolver.resolve(stack, managed));
    const awsManaged = /^arn:[^:]+:iam::aws:policy\/(.+)$/.exec(arn)?.[1];
    const standIn = awsManaged ? AWS_MANAGED_STAND_INS[awsManaged] : undefined;
    if (standIn)
      policies.push({ name: awsManaged ?? arn, policy: { Version: '2012-10-17', Statement: standIn } });
    else unresolved.push(`managed policy ${arn} is not known locally: it allows nothing here`);
  }
  return policies;
}

/** The resource policies of the set, by the ARN of the resource each governs. */
function resourcePolicies(resolver: TemplateResolver): Map<string, PolicyDocument> {
  const policies = new Map<string, PolicyDocument>();
  const ignored: string[] = [];
  const governed: Record<string, (stack: string, properties: Json) => string[]> = {
    'AWS::S3::BucketPolicy': (stack, properties) => [
      `arn:${resolver.account.partition}:s3:::${resolver.resolve(stack, properties.Bucket)}`,
    ],
    'AWS::SecretsManager::ResourcePolicy': (stack, properties) => [
      resolver.resolve(stack, properties.SecretId),
    ],
    'AWS::SNS::TopicPolicy': (stack, properties) => resolver.resolve(stack, properties.Topics),
    'AWS::SQS::QueuePolicy': (stack, properties) =>
      (resolver.resolve(stack, properties.Queues) as string[]).map((url) => {
        const [, , host = '', account = '', name = ''] = url.split('/');
        return `arn:${resolver.account.partition}:sqs:${host.split('.')[1]}:${account}:${name}`;
      }),
    // One statement per resource; a bus's statements are its policy together.
    'AWS::Events::EventBusPolicy': (stack, properties) => {
      const bus =
        properties.EventBusName === undefined ? 'default' : resolver.resolve(stack, properties.EventBusName);
      return [
        String(bus).startsWith('arn:') ? bus : regionalArn(resolver.account, 'events', `event-bus/${bus}`),
      ];
    },
  };
  for (const [stack, template] of resolver.templates) {
    for (const [logicalId, resource] of Object.entries(template.Resources ?? {})) {
      const arns = governed[resource.Type];
      if (!arns) continue;
      const properties = resource.Properties ?? {};
      const document =
        properties.PolicyDocument ??
        properties.ResourcePolicy ??
        (properties.Statement
          ? { Statement: [{ Sid: properties.StatementId, ...properties.Statement }] }
          : undefined);
      const policy = resolveDocument(resolver, stack, document, ignored, logicalId);
      for (const arn of arns(stack, properties)) {
        const before = policies.get(String(arn));
        policies.set(
          String(arn),
          before ? { ...before, Statement: [...before.Statement, ...policy.Statement] } : policy,
        );
      }
    }
  }
  return policies;
}

/** The policies of every function the stage names (`bp-<stage>-…`), from the template set. */
export function extractPolicies(resolver: TemplateResolver, stage: string): ExtractedPolicies {
  const prefix = functionNamePrefix(stage);
  const functions = new Map<string, FunctionPolicies>();
  const sesIdentities: string[] = [];
  const { partition, accountId } = resolver.account;
  for (const [stack, template] of resolver.templates as TemplateSet) {
    for (const [logicalId, resource] of Object.entries(template.Resources ?? {})) {
      if (resource.Type === 'AWS::SES::EmailIdentity') {
        sesIdentities.push(String(resolver.resolve(stack, resource.Properties?.EmailIdentity)));
      }
      if (resource.Type !== 'AWS::Lambda::Function') continue;
      const functionName = resolver.physicalName(stack, logicalId);
      // CDK's own handlers (custom resource providers) run only in AWS, at deployment.
      if (!functionName.startsWith(prefix)) continue;
      const unresolved: string[] = [];
      const roleId = referencedId(resource.Properties?.Role);
      const roleName = roleId ? resolver.physicalName(stack, roleId) : 'unknown-role';
      if (!roleId)
        unresolved.push(`the role ${JSON.stringify(resource.Properties?.Role)} is not in the template`);
      const name = functionName.slice(prefix.length);
      functions.set(name, {
        name,
        functionName,
        stack,
        roleArn: `arn:${partition}:iam::${accountId}:role/${roleName}`,
        principalArn: `arn:${partition}:sts::${accountId}:assumed-role/${roleName}/${functionName}`,
        identityPolicies: roleId ? rolePolicies(resolver, stack, roleId, unresolved) : [],
        unresolved,
      });
    }
  }
  const byArn = resourcePolicies(resolver);
  return {
    account: resolver.account,
    functions,
    sesIdentities,
    resourcePolicies: [...byArn.values()],
    resourcePolicyFor: (resourceArn) => {
      const s3 = /^arn:[^:]+:s3:::([^/]+)/.exec(resourceArn);
      return byArn.get(s3 ? `arn:${partition}:s3:::${s3[1]}` : resourceArn);
    },
  };
}
