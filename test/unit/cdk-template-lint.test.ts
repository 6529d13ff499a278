import { beforeAll, describe, expect, it } from 'vitest';
import { type Json, synthesize } from '../support/cdk-app.ts';
import {
  createTemplateLinter,
  type Finding,
  formatFinding,
  loadSpec,
  type SpecGap,
} from '../support/template-lint.ts';

/** Synthesizing the whole app takes ~10 s alone, more on a busy machine. */
const SYNTH_TIMEOUT = 180_000;

/**
 * Findings that are gaps of the specification rather than errors of the templates, each with its
 * reason. An entry matches a finding of that resource type at that path whose message contains
 * `message`. None is needed today.
 */
const SPEC_GAPS: SpecGap[] = [];

/** The settings other than the defaults that change the templates most. */
const OTHER_SETTINGS = {
  cognitoTier: 'plus',
  cognitoEmail: 'ses',
  sesSender: 'no-reply@mail.customer.test',
  sesIdentity: 'mail.customer.test',
  consoleSignIn: 'srp',
  alarmEmail: 'oncall@example.com',
};

const spec = loadSpec();

describe.each([
  ['the default settings', {}],
  ['Cognito Plus, mail through SES, SRP sign-in and alarm e-mail', OTHER_SETTINGS],
])('every synthesized template, with %s, against the CloudFormation specification', (_, settings) => {
  let templates: Map<string, Json>;

  beforeAll(() => {
    const app = synthesize(settings);
    templates = new Map([...app.templates].map(([name, template]) => [name, template.toJSON()]));
  }, SYNTH_TIMEOUT);

  it('has no unknown type or property, no missing required property, no wrong shape and no dangling reference', () => {
    const lint = createTemplateLinter(spec, SPEC_GAPS);
    const findings = [...templates].flatMap(([stack, template]) => lint(stack, template));
    expect(findings.map(formatFinding)).toEqual([]);
    const resources = [...templates.values()].flatMap((template) => Object.values(template.Resources));
    expect(resources.length).toBeGreaterThan(500);
  });

  it('finds a nested property spoiled in one of these resources', () => {
    const [stack, template] = [...templates].find(([name]) => name.endsWith('-Routes-blog')) ?? [];
    const spoiled = structuredClone(template);
    const [logicalId, fn] = Object.entries<Json>(spoiled.Resources).find(
      ([, resource]) => resource.Type === 'AWS::Lambda::Function',
    ) ?? ['', {}];
    fn.Properties.Environment.Varaibles = fn.Properties.Environment.Variables;
    expect(createTemplateLinter(spec, SPEC_GAPS)(String(stack), spoiled).map(formatFinding)).toEqual([
      `${stack}/${logicalId}: Properties.Environment.Varaibles: unknown property of Environment (known: Variables)`,
    ]);
  });
});

describe('the template lint itself', () => {
  const lint = createTemplateLinter(spec);
  const findingsOf = (resources: Record<string, Json>, rest: Record<string, Json> = {}) =>
    lint('Test', { Resources: resources, ...rest }).map(formatFinding);

  /** A log group and a function that are valid as they stand; each test spoils one thing. */
  const valid = (): Record<string, Json> => ({
    Logs: { Type: 'AWS::Logs::LogGroup', Properties: { RetentionInDays: 30 } },
    Role: {
      Type: 'AWS::IAM::Role',
      Properties: { AssumeRolePolicyDocument: { Version: '2012-10-17', Statement: [] } },
    },
    Fn: {
      Type: 'AWS::Lambda::Function',
      Properties: {
        Code: { S3Bucket: 'bucket', S3Key: 'key.zip' },
        Role: { 'Fn::GetAtt': ['Role', 'Arn'] },
        Handler: 'index.handler',
        Runtime: 'nodejs22.x',
        MemorySize: '1024',
        Environment: {
          // biome-ignore lint/suspicious/noTemplateCurlyInString: Fn::Sub's own placeholders.
          Variables: { TABLE: { 'Fn::Sub': '${Logs}-${AWS::Region}-${Role.Arn}-${!Literal}' } },
        },
        LoggingConfig: { LogGroup: { Ref: 'Logs' } },
        Tags: [{ Key: 'stage', Value: 'dev' }],
      },
      DependsOn: ['Logs'],
    },
  });

  it('passes a valid template, with what CloudFormation coerces and intrinsic functions anywhere', () => {
    expect(findingsOf(valid())).toEqual([]);
  });

  it('reports a resource type the specification does not have, and takes custom resources with any properties', () => {
    expect(
      findingsOf({
        Queue: { Type: 'AWS::SQS::Queues', Properties: {} },
        Custom: { Type: 'Custom::Anything', Properties: { ServiceToken: 'arn', Whatever: { Nested: [1] } } },
        Tokenless: { Type: 'AWS::CloudFormation::CustomResource', Properties: { Whatever: 1 } },
        CDKMetadata: { Type: 'AWS::CDK::Metadata', Properties: { Analytics: 'v2:…' } },
      }),
    ).toEqual([
      'Test/Queue: Type: AWS::SQS::Queues is no resource type of the CloudFormation specification',
      'Test/Tokenless: Properties: missing required property ServiceToken',
    ]);
  });

  it('reports unknown properties at the top, inside a nested type, a list element and a tag', () => {
    const resources = valid();
    resources.Fn.Properties.Timeout2 = 3;
    resources.Fn.Properties.Environment.Vars = {};
    resources.Fn.Properties.Tags.push({ Key: 'a', Value: 'b', Propagate: true });
    resources.Role.Properties.Policies = [{ PolicyName: 'p', PolicyDocument: {}, Path: '/' }];
    resources.Fn.Extra = true;
    const findings = findingsOf(resources);
    expect(findings).toEqual([
      expect.stringMatching(
        /^Test\/Role: Properties.Policies\[0\].Path: unknown property of Policy \(known: /,
      ),
      'Test/Fn: Extra: unknown resource attribute (known: Type, Properties, DependsOn, Condition, Metadata, DeletionPolicy, UpdateReplacePolicy, UpdatePolicy, CreationPolicy)',
      'Test/Fn: Properties.Environment.Vars: unknown property of Environment (known: Variables)',
      'Test/Fn: Properties.Tags[1].Propagate: unknown property of Tag (known: Key, Value)',
      expect.stringMatching(
        /^Test\/Fn: Properties.Timeout2: unknown property of AWS::Lambda::Function \(known: .*Timeout, /,
      ),
    ]);
  });

  it('reports missing required properties, at the top and nested', () => {
    const resources = valid();
    delete resources.Fn.Properties.Role;
    resources.Fn.Properties.Tags = [{ Key: 'stage' }];
    resources.Role.Properties.Policies = [{ PolicyName: 'p' }];
    expect(findingsOf(resources)).toEqual([
      'Test/Role: Properties.Policies[0]: missing required property PolicyDocument',
      'Test/Fn: Properties: missing required property Role',
      'Test/Fn: Properties.Tags[0]: missing required property Value',
    ]);
  });

  it('reports values of the wrong shape and values outside the allowed ones', () => {
    const resources = valid();
    resources.Logs.Properties.RetentionInDays = 8;
    resources.Fn.Properties.Handler = { handler: 'index' };
    resources.Fn.Properties.MemorySize = 'large';
    resources.Fn.Properties.Architectures = 'arm64';
    resources.Fn.Properties.Layers = { 'Fn::Join': [',', ['a', 'b']] };
    resources.Fn.Properties.Environment = ['TABLE=x'];
    resources.Fn.Properties.PackageType = 'Jar';
    expect(findingsOf(resources)).toEqual([
      'Test/Logs: Properties.RetentionInDays: 8 is not one of 1, 3, 5, 7, 14, 30, 60, 90, 120, 150, 180, 365, 400, 545, 731, 1096, 1827, 2192, 2557, 2922, 3288, 3653',
      'Test/Fn: Properties.Handler: expects a string, got an object',
      'Test/Fn: Properties.MemorySize: expects an integer, got the string "large"',
      'Test/Fn: Properties.Environment: expects an object of type Environment, got a list',
      'Test/Fn: Properties.Architectures: expects a list of string, got the string "arm64"',
      'Test/Fn: Properties.Layers: Fn::Join gives a string where a list of string goes',
      'Test/Fn: Properties.PackageType: "Jar" is not one of Image, Zip',
    ]);
  });

  it('checks both branches of Fn::If, and that its condition exists', () => {
    const resources = valid();
    resources.Fn.Properties.TracingConfig = {
      'Fn::If': ['IsProd', { Mode: 'Active' }, { Modus: 'PassThrough' }],
    };
    resources.Fn.Properties.Description = { 'Fn::If': ['Missing', 'a', { Ref: 'AWS::NoValue' }] };
    expect(findingsOf(resources, { Conditions: { IsProd: { 'Fn::Equals': ['a', 'b'] } } })).toEqual([
      'Test/Fn: Properties.TracingConfig.Fn::If[2].Modus: unknown property of TracingConfig (known: Mode)',
      'Test/Fn: Properties.Description: Fn::If names Missing, which is no condition of this template',
    ]);
  });

  it('reports references to nothing: Ref, Fn::GetAtt of a resource or an attribute, Fn::Sub, DependsOn, outputs', () => {
    const resources = valid();
    resources.Fn.Properties.Role = { 'Fn::GetAtt': ['Role', 'Name'] };
    resources.Fn.Properties.Handler = { 'Fn::GetAtt': 'Ghost.Arn' };
    resources.Fn.Properties.LoggingConfig.LogGroup = { Ref: 'LogGroup' };
    resources.Fn.Properties.Environment.Variables.TABLE = {
      // biome-ignore lint/suspicious/noTemplateCurlyInString: Fn::Sub's own placeholders.
      'Fn::Sub': ['${Table}-${Known}', { Known: 'x' }],
    };
    resources.Fn.DependsOn = 'Ghost';
    resources.Fn.Properties.Code = { 'Fn::Placeholder': 'code.zip' };
    expect(findingsOf(resources, { Outputs: { Arn: { Value: { 'Fn::GetAtt': ['Fn', 'Url'] } } } })).toEqual([
      'Test/Fn: DependsOn: "Ghost" is no resource of this template',
      'Test/Fn: Properties.Code: unknown function Fn::Placeholder',
      'Test/Fn: Properties.Role: Fn::GetAtt Role.Name: AWS::IAM::Role has no attribute Name (it has: Arn, RoleId)',
      'Test/Fn: Properties.Handler: Fn::GetAtt of Ghost, which is no resource of this template',
      'Test/Fn: Properties.Environment.Variables.TABLE.Fn::Sub: Ref to Table, which is no resource, parameter or pseudo parameter of this template',
      'Test/Fn: Properties.LoggingConfig.LogGroup: Ref to LogGroup, which is no resource, parameter or pseudo parameter of this template',
      expect.stringMatching(
        /^Test\/Outputs.Arn: Value: Fn::GetAtt Fn.Url: AWS::Lambda::Function has no attribute Url \(it has: Arn, /,
      ),
    ]);
  });

  it('leaves out a finding listed as a specification gap, and only that one', () => {
    const resources = valid();
    delete resources.Fn.Properties.Role;
    delete resources.Fn.Properties.Code;
    const gap: SpecGap = {
      type: 'AWS::Lambda::Function',
      path: 'Properties',
      message: 'missing required property Role',
      reason: 'a self-test of the allow-list',
    };
    const findings: Finding[] = createTemplateLinter(spec, [gap])('Test', { Resources: resources });
    expect(findings.map(formatFinding)).toEqual(['Test/Fn: Properties: missing required property Code']);
  });
});
