import { Match, type Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import type { RouteDefinition } from '#lib/http/route.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { parameterName } from '../../infra/parameters.ts';
import { buildServiceApp } from '../../infra/service-app.ts';
import { ContextError, readServiceContext } from '../../infra/service-context.ts';
import { type Json, newApp, type Resources, synthesize } from '../support/cdk-app.ts';
import { createTemplateLinter, formatFinding, loadSpec } from '../support/template-lint.ts';

/** Synthesizing the whole app takes ~10 s alone, more on a busy machine. */
const SYNTH_TIMEOUT = 180_000;

const CERTIFICATE = 'arn:aws:acm:eu-west-1:123456789012:certificate/0b5e2a4c-6d1f-4e8a-9c3b-7f2d1e0a5b6c';
const CONSOLE_CERTIFICATE =
  'arn:aws:acm:eu-west-1:123456789012:certificate/1c6f3b5d-7e2a-4f9b-8d4c-8a3e2f1b6c7d';
const ZONE_ID = 'Z0123456789ABCDEFGHIJ';

/** The region CDK's CLI would tell the app it deploys to, whatever the shell running the tests says. */
vi.stubEnv('CDK_DEFAULT_REGION', 'eu-west-1');

const read = (settings: Record<string, string>) => readServiceContext(newApp(settings));

/** The routes whose functions verify or issue OAuth tokens, and so carry the issuer. */
const namesIssuer = (route: RouteDefinition) =>
  route.auth === 'edits' || route.auth === 'mcp' || route.area === 'oauth' || route.area === 'consent';

/** Each function's environment, by its description (`<METHOD> <path>`). */
function environments(resources: Resources): Map<string, Record<string, Json>> {
  return new Map(
    Object.values(resources)
      .filter((resource) => resource.Type === 'AWS::Lambda::Function')
      .map((fn) => [String(fn.Properties?.Description), fn.Properties?.Environment?.Variables ?? {}]),
  );
}

/** The logical id of the stack parameter that reads an SSM parameter of the dev stage. */
function parameterReading(template: Template, key: Parameters<typeof parameterName>[1]): string {
  const parameters = Object.entries<Json>(template.toJSON().Parameters ?? {});
  const found = parameters.find(([, parameter]) => parameter.Default === parameterName('dev', key));
  if (!found) throw new Error(`the stack does not read ${key}`);
  return found[0];
}

function logicalIdOf(template: Template, type: string, properties: Record<string, Json>): string {
  const ids = Object.keys(template.findResources(type, { Properties: Match.objectLike(properties) }));
  expect(ids, `${type} ${JSON.stringify(properties)}`).toHaveLength(1);
  return String(ids[0]);
}

describe('both APIs on domains of the customer, with the DNS records in Route 53', () => {
  const settings = {
    domainName: 'API.customer.test',
    certificateArn: CERTIFICATE,
    consoleApiDomainName: 'console-api.customer.test',
    consoleCertificateArn: CONSOLE_CERTIFICATE,
    hostedZoneId: ZONE_ID,
    hostedZoneName: 'customer.test.',
  };
  let app: ReturnType<typeof synthesize>;
  let stages: Template;

  beforeAll(() => {
    app = synthesize(settings);
    stages = app.template('-Stages');
  }, SYNTH_TIMEOUT);

  it('gives each API a regional custom domain with its certificate, TLS 1.2, over IPv4 and IPv6', () => {
    for (const [name, certificate] of [
      ['api.customer.test', CERTIFICATE],
      ['console-api.customer.test', CONSOLE_CERTIFICATE],
    ]) {
      stages.hasResourceProperties('AWS::ApiGatewayV2::DomainName', {
        DomainName: name,
        DomainNameConfigurations: [
          {
            CertificateArn: certificate,
            EndpointType: 'REGIONAL',
            SecurityPolicy: 'TLS_1_2',
            IpAddressType: 'dualstack',
          },
        ],
      });
    }
    expect(Object.keys(stages.findResources('AWS::ApiGatewayV2::DomainName'))).toHaveLength(2);
  });

  it("maps each domain's root to the $default stage of its own API, after that stage exists", () => {
    for (const [name, surface] of [
      ['api.customer.test', 'assistant'],
      ['console-api.customer.test', 'console'],
    ] as const) {
      const domain = logicalIdOf(stages, 'AWS::ApiGatewayV2::DomainName', { DomainName: name });
      const apiId = { Ref: parameterReading(stages, `${surface}-api-id`) };
      const stage = logicalIdOf(stages, 'AWS::ApiGatewayV2::Stage', { ApiId: apiId });
      const mappings = stages.findResources('AWS::ApiGatewayV2::ApiMapping', {
        Properties: { DomainName: { Ref: domain } },
      });
      expect(Object.values(mappings)).toEqual([
        expect.objectContaining({
          Properties: { ApiId: apiId, DomainName: { Ref: domain }, Stage: '$default' },
          DependsOn: expect.arrayContaining([stage]),
        }),
      ]);
    }
  });

  it('writes alias A and AAAA records of each name into the hosted zone, and no DNS outputs', () => {
    for (const name of ['api.customer.test', 'console-api.customer.test']) {
      const domain = logicalIdOf(stages, 'AWS::ApiGatewayV2::DomainName', { DomainName: name });
      for (const type of ['A', 'AAAA']) {
        stages.hasResourceProperties('AWS::Route53::RecordSet', {
          HostedZoneId: ZONE_ID,
          Name: `${name}.`,
          Type: type,
          AliasTarget: {
            DNSName: { 'Fn::GetAtt': [domain, 'RegionalDomainName'] },
            HostedZoneId: { 'Fn::GetAtt': [domain, 'RegionalHostedZoneId'] },
          },
        });
      }
    }
    expect(Object.keys(stages.findResources('AWS::Route53::RecordSet'))).toHaveLength(4);
    expect(Object.keys(stages.toJSON().Outputs ?? {})).toEqual([]);
  });

  it('names https://<domainName> as the issuer in every function that verifies or issues tokens, and in the outputs', () => {
    const byDescription = environments(app.resources());
    const issuing = routeTable.filter(namesIssuer);
    expect(issuing.length).toBeGreaterThan(20);
    for (const route of issuing) {
      expect(byDescription.get(`${route.method} ${route.path}`)?.OAUTH_ISSUER, route.operationId).toBe(
        'https://api.customer.test',
      );
    }
    const issuers = new Set([...byDescription.values()].map((environment) => environment.OAUTH_ISSUER));
    expect(issuers).toEqual(new Set([undefined, 'https://api.customer.test']));

    const api = app.template('-Api');
    api.hasOutput('AssistantApiUrl', { Value: 'https://api.customer.test' });
    api.hasOutput('ConsoleApiUrl', { Value: 'https://console-api.customer.test' });
  });

  it(
    'synthesises with no unacknowledged cdk-nag AwsSolutions finding',
    () => {
      expect(() => buildServiceApp({ app: newApp(settings) }).app.synth()).not.toThrow();
    },
    SYNTH_TIMEOUT,
  );

  it('passes the check against the CloudFormation specification', () => {
    const lint = createTemplateLinter(loadSpec());
    const findings = [...app.templates].flatMap(([stack, template]) => lint(stack, template.toJSON()));
    expect(findings.map(formatFinding)).toEqual([]);
  });
});

describe('the assistant API on a domain whose DNS someone else keeps', () => {
  let app: ReturnType<typeof synthesize>;

  beforeAll(() => {
    app = synthesize({ domainName: 'api.customer.test', certificateArn: CERTIFICATE });
  }, SYNTH_TIMEOUT);

  it('writes no records, and outputs the regional target to point the name at', () => {
    const stages = app.template('-Stages');
    const domain = logicalIdOf(stages, 'AWS::ApiGatewayV2::DomainName', { DomainName: 'api.customer.test' });
    expect(stages.findResources('AWS::Route53::RecordSet')).toEqual({});
    stages.hasOutput('AssistantApiDomainTarget', {
      Value: { 'Fn::GetAtt': [domain, 'RegionalDomainName'] },
      Description: Match.stringLikeRegexp('^Point api.customer.test here'),
    });
    stages.hasOutput('AssistantApiDomainHostedZoneId', {
      Value: { 'Fn::GetAtt': [domain, 'RegionalHostedZoneId'] },
    });
  });

  it('leaves the console API on its execute-api URL', () => {
    const stages = app.template('-Stages');
    expect(Object.keys(stages.findResources('AWS::ApiGatewayV2::DomainName'))).toHaveLength(1);
    expect(Object.keys(stages.toJSON().Outputs)).not.toContain('ConsoleApiDomainTarget');
    const api = app.template('-Api');
    api.hasOutput('ConsoleApiUrl', { Value: { 'Fn::Join': ['', Match.arrayWith(['https://'])] } });
    api.hasOutput('AssistantApiUrl', { Value: 'https://api.customer.test' });
  });
});

describe('an issuer URL nothing in the stacks serves', () => {
  it('is refused at synth, naming the setting to add', () => {
    expect(() => synthesize({ publicUrl: 'https://api.customer.test' })).toThrow(
      new ContextError(
        'context publicUrl https://api.customer.test names a URL nothing in the stacks serves: set domainName api.customer.test with certificateArn to give the assistant API that domain (publicUrl then defaults to https://api.customer.test), or set publicUrlServedExternally: true if a proxy or CDN of yours serves it and forwards to the assistant API',
      ),
    );
  });

  it("is refused when it is not the assistant API's domain: another host, or a path", () => {
    const domain = { domainName: 'api.customer.test', certificateArn: CERTIFICATE };
    expect(() => read({ ...domain, publicUrl: 'https://mcp.customer.test' })).toThrow(
      "context publicUrl https://mcp.customer.test is not the assistant API's domain https://api.customer.test (another host): drop publicUrl (it defaults to https://api.customer.test), or set publicUrlServedExternally: true",
    );
    expect(() => read({ ...domain, publicUrl: 'https://api.customer.test/assistant' })).toThrow(
      /is not the assistant API's domain https:\/\/api.customer.test \(it has a path\)/,
    );
    expect(() => read({ ...domain, publicUrl: 'https://api.customer.test:8443' })).toThrow(/another host/);
  });

  it('is taken when the settings say a proxy or CDN of the customer serves it', () => {
    const context = read({
      publicUrl: 'https://assistant.customer.test/',
      publicUrlServedExternally: 'true',
    });
    expect(context.publicUrl).toBe('https://assistant.customer.test');
    expect(() => read({ publicUrlServedExternally: 'true' })).toThrow(
      'context publicUrlServedExternally is true, but publicUrl is not set',
    );
  });

  it('is no issue when publicUrl is the domain, or left to default to it', () => {
    const domain = { domainName: 'api.customer.test', certificateArn: CERTIFICATE };
    expect(read(domain).publicUrl).toBe('https://api.customer.test');
    expect(read({ ...domain, publicUrl: 'https://API.customer.test/' }).publicUrl).toBe(
      'https://api.customer.test',
    );
    expect(read({}).publicUrl).toBeUndefined();
  });

  it('refuses what is not an https URL with a DNS host', () => {
    for (const publicUrl of [
      'http://api.customer.test',
      'api.customer.test',
      'https://api.customer.test/?a=1',
    ]) {
      expect(() => read({ publicUrl, publicUrlServedExternally: 'true' }), publicUrl).toThrow(
        /context publicUrl must be an https URL/,
      );
    }
  });
});

describe('custom domain settings', () => {
  it('gives the console API the shared certificate unless it has its own', () => {
    const context = read({
      domainName: 'api.customer.test',
      consoleApiDomainName: 'console-api.customer.test',
      certificateArn: CERTIFICATE,
    });
    expect(context.consoleApiDomain).toEqual({
      domainName: 'console-api.customer.test',
      certificateArn: CERTIFICATE,
    });
    expect(
      read({ consoleApiDomainName: 'console-api.customer.test', consoleCertificateArn: CONSOLE_CERTIFICATE }),
    ).toMatchObject({
      assistantDomain: undefined,
      consoleApiDomain: { certificateArn: CONSOLE_CERTIFICATE },
      publicUrl: undefined,
    });
  });

  it('refuses a domain without a certificate, and a certificate without a domain', () => {
    expect(() => read({ domainName: 'api.customer.test' })).toThrow(
      'context domainName api.customer.test needs certificateArn',
    );
    expect(() => read({ consoleApiDomainName: 'console-api.customer.test' })).toThrow(
      'context consoleApiDomainName console-api.customer.test needs a certificate: consoleCertificateArn, or certificateArn',
    );
    expect(() => read({ certificateArn: CERTIFICATE })).toThrow(
      'context certificateArn is set, but no domainName or consoleApiDomainName uses it',
    );
    expect(() =>
      read({
        domainName: 'api.customer.test',
        certificateArn: CERTIFICATE,
        consoleCertificateArn: CERTIFICATE,
      }),
    ).toThrow('context consoleCertificateArn is set, but consoleApiDomainName is not');
  });

  it('refuses names that are not DNS names, and one name for both APIs', () => {
    for (const domainName of [
      'https://api.customer.test',
      'api.customer.test/mcp',
      '*.customer.test',
      'localhost',
    ]) {
      expect(() => read({ domainName, certificateArn: CERTIFICATE }), domainName).toThrow(
        /context domainName must be a DNS name such as api.yourcompany.com/,
      );
    }
    expect(() =>
      read({
        domainName: 'api.customer.test',
        consoleApiDomainName: 'api.customer.test',
        certificateArn: CERTIFICATE,
      }),
    ).toThrow('each API needs its own name');
  });

  it('refuses what is not an ACM certificate ARN', () => {
    for (const certificateArn of [
      'arn:aws:iam::123456789012:server-certificate/api',
      'arn:aws:acm:eu-west-1:123456789012:certificate/',
      '0b5e2a4c-6d1f-4e8a-9c3b-7f2d1e0a5b6c',
    ]) {
      expect(() => read({ domainName: 'api.customer.test', certificateArn }), certificateArn).toThrow(
        /context certificateArn must be an ACM certificate ARN/,
      );
    }
  });

  it('refuses a certificate of another region than the one CDK deploys to, and certificates of two regions', () => {
    const domain = { domainName: 'api.customer.test', certificateArn: CERTIFICATE };
    vi.stubEnv('CDK_DEFAULT_REGION', 'us-east-1');
    expect(() => read(domain)).toThrow(
      'context certificateArn is a certificate of eu-west-1, but the stacks deploy to us-east-1',
    );
    vi.stubEnv('CDK_DEFAULT_REGION', 'eu-west-1');
    expect(read(domain).assistantDomain).toEqual(domain);
    // An offline synth, which knows no region, still sees two certificates disagree.
    vi.stubEnv('CDK_DEFAULT_REGION', '');
    expect(read(domain).assistantDomain).toEqual(domain);
    expect(() =>
      read({
        ...domain,
        consoleApiDomainName: 'console-api.customer.test',
        consoleCertificateArn: CONSOLE_CERTIFICATE.replace('eu-west-1', 'eu-central-1'),
      }),
    ).toThrow(
      'context certificateArn and consoleCertificateArn are in different regions (eu-west-1, eu-central-1)',
    );
    vi.stubEnv('CDK_DEFAULT_REGION', 'eu-west-1');
  });

  it('takes a hosted zone only with its name, a zone id, and names inside the zone', () => {
    const domain = { domainName: 'api.customer.test', certificateArn: CERTIFICATE };
    expect(read({ ...domain, hostedZoneId: ZONE_ID, hostedZoneName: 'customer.test' }).hostedZone).toEqual({
      id: ZONE_ID,
      name: 'customer.test',
    });
    expect(() => read({ ...domain, hostedZoneId: ZONE_ID })).toThrow(
      'context hostedZoneId and hostedZoneName go together',
    );
    expect(() =>
      read({ ...domain, hostedZoneId: '/hostedzone/Z0123', hostedZoneName: 'customer.test' }),
    ).toThrow('context hostedZoneId must be a Route 53 hosted zone id');
    expect(() => read({ ...domain, hostedZoneId: ZONE_ID, hostedZoneName: 'other.test' })).toThrow(
      'context hostedZoneName other.test does not hold api.customer.test',
    );
    expect(() => read({ ...domain, hostedZoneId: ZONE_ID, hostedZoneName: 'stomer.test' })).toThrow(
      'does not hold api.customer.test',
    );
    expect(() => read({ hostedZoneId: ZONE_ID, hostedZoneName: 'customer.test' })).toThrow(
      'no domainName, consoleApiDomainName or consoleDomainName needs records',
    );
  });
});
