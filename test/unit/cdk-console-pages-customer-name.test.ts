import { beforeAll, describe, expect, it, vi } from 'vitest';
import { CONFIG_FILE } from '../../console-pages/config.ts';
import { consolePagesHeaders } from '../../console-pages/headers.ts';
import { type Json, synthesize } from '../support/cdk-app.ts';
import {
  API_CERTIFICATE,
  type App,
  BASE,
  COGNITO,
  consoleClient,
  deployed,
  deployedFile,
  functionEnvironments,
  headersSent,
  only,
  PAGES_CERTIFICATE,
  SYNTH_TIMEOUT,
} from '../support/console-pages-deployment.ts';
import { createTemplateLinter, formatFinding, loadSpec } from '../support/template-lint.ts';

// The region CDK's CLI would tell the app; the templates are read as deployed there (DEPLOYED_AT).
vi.stubEnv('CDK_DEFAULT_REGION', 'eu-west-1');

describe('console pages on a name of the customer', () => {
  const settings = {
    ...BASE,
    consolePages: 'true',
    consoleDomainName: 'Console.customer.test',
    consolePagesCertificateArn: PAGES_CERTIFICATE,
    consoleApiDomainName: 'console-api.customer.test',
    certificateArn: API_CERTIFICATE,
    hostedZoneId: 'Z0123456789ABCDEFGHIJ',
    hostedZoneName: 'customer.test',
  };
  let app: App;

  beforeAll(() => {
    app = synthesize(settings);
  }, SYNTH_TIMEOUT);

  it('serves the name with its us-east-1 certificate and TLS 1.2, aliased in the hosted zone', () => {
    const pages = app.template('-ConsolePages');
    const config = only(pages, 'AWS::CloudFront::Distribution').Properties.DistributionConfig;
    expect(config.Aliases).toEqual(['console.customer.test']);
    expect(config.ViewerCertificate).toEqual({
      AcmCertificateArn: PAGES_CERTIFICATE,
      MinimumProtocolVersion: 'TLSv1.2_2021',
      SslSupportMethod: 'sni-only',
    });
    const records = Object.values<Json>(pages.findResources('AWS::Route53::RecordSet'));
    expect(records.map((record) => record.Properties.Type).sort()).toEqual(['A', 'AAAA']);
    for (const record of records) {
      expect(record.Properties).toMatchObject({
        Name: 'console.customer.test.',
        HostedZoneId: 'Z0123456789ABCDEFGHIJ',
      });
    }
  });

  it("names the console API's domain exactly in the header CSP and config.json, and the pages' name everywhere", () => {
    const pages = app.template('-ConsolePages');
    const policy = only(pages, 'AWS::CloudFront::ResponseHeadersPolicy').Properties;
    expect(headersSent(deployed(pages, policy.ResponseHeadersPolicyConfig))).toEqual(
      consolePagesHeaders({ apiOrigins: ['https://console-api.customer.test'], signInOrigin: COGNITO }),
    );
    const files = app.template('-ConsolePagesFiles');
    const config = JSON.parse(deployedFile(app, files, 2, CONFIG_FILE));
    expect(config.apiUrl).toBe('https://console-api.customer.test');

    const client = consoleClient(app);
    expect(client.CallbackURLs).toEqual(['https://console.customer.test/auth/callback']);
    expect(client.LogoutURLs).toEqual(['https://console.customer.test/']);
    const authorize = functionEnvironments(app).get('authorizeOAuthClient');
    expect(authorize?.CONSOLE_URL).toBe('https://console.customer.test');
  });

  it('passes cdk-nag and the template lint', () => {
    expect(() => app.built.app.synth()).not.toThrow();
    const lint = createTemplateLinter(loadSpec());
    const findings = [...app.templates].flatMap(([stack, template]) => lint(stack, template.toJSON()));
    expect(findings.map(formatFinding)).toEqual([]);
  });
});

describe('console pages beside a console of your own', () => {
  it(
    'lets both sign in and call the API, links to your console, and names the DNS target without a hosted zone',
    () => {
      const app = synthesize({
        ...BASE,
        consolePages: 'true',
        consoleDomainName: 'pages.customer.test',
        consolePagesCertificateArn: PAGES_CERTIFICATE,
        consoleUrl: 'https://console.customer.test',
      });
      const client = consoleClient(app);
      expect(client.CallbackURLs).toEqual([
        'https://console.customer.test/auth/callback',
        'https://pages.customer.test/auth/callback',
      ]);
      const api = app.template('-Api');
      const consoleApi = Object.values<Json>(api.findResources('AWS::ApiGatewayV2::Api')).find(
        (resource) => resource.Properties.CorsConfiguration,
      );
      expect(consoleApi.Properties.CorsConfiguration.AllowOrigins).toEqual([
        'https://console.customer.test',
        'https://pages.customer.test',
      ]);
      expect(functionEnvironments(app).get('authorizeOAuthClient')?.CONSOLE_URL).toBe(
        'https://console.customer.test',
      );
      const pages = app.template('-ConsolePages');
      expect(pages.findResources('AWS::Route53::RecordSet')).toEqual({});
      expect(Object.keys(pages.toJSON().Outputs)).toContain('ConsolePagesDomainTarget');
    },
    SYNTH_TIMEOUT,
  );
});
