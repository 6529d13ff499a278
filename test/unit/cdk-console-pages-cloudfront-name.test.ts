import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it, vi } from 'vitest';
import { PAGE_FILES, pageShell } from '../../console-pages/build.ts';
import { CONFIG_FILE, ConsolePagesConfig } from '../../console-pages/config.ts';
import { consolePagesHeaders } from '../../console-pages/headers.ts';
import { CONSOLE_SIGN_IN_SCOPES } from '../../infra/cognito-sign-in.ts';
import { type Json, synthesize } from '../support/cdk-app.ts';
import {
  type App,
  BASE,
  COGNITO,
  consoleClient,
  DISTRIBUTION_ID,
  deployed,
  deployedFile,
  EXECUTE_API,
  functionEnvironments,
  headersSent,
  only,
  PARAMETERS,
  STAGE,
  SYNTH_TIMEOUT,
} from '../support/console-pages-deployment.ts';
import { createTemplateLinter, formatFinding, loadSpec } from '../support/template-lint.ts';

// The region CDK's CLI would tell the app; the templates are read as deployed there (DEPLOYED_AT).
vi.stubEnv('CDK_DEFAULT_REGION', 'eu-west-1');

describe('console pages on their CloudFront name', () => {
  let app: App;
  let pages: Template;
  let files: Template;

  beforeAll(() => {
    app = synthesize({ ...BASE, consolePages: 'true' });
    pages = app.template('-ConsolePages');
    files = app.template('-ConsolePagesFiles');
  }, SYNTH_TIMEOUT);

  it('passes cdk-nag and the template lint', () => {
    expect(() => app.built.app.synth()).not.toThrow();
    const lint = createTemplateLinter(loadSpec());
    const findings = [...app.templates].flatMap(([stack, template]) => lint(stack, template.toJSON()));
    expect(findings.map(formatFinding)).toEqual([]);
  });

  it('keeps the bucket private: public access blocked, TLS only, read by this distribution alone', () => {
    const bucket = only(pages, 'AWS::S3::Bucket');
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    const statements: Json[] = only(pages, 'AWS::S3::BucketPolicy').Properties.PolicyDocument.Statement;
    expect(statements).toContainEqual(
      expect.objectContaining({
        Effect: 'Deny',
        Principal: { AWS: '*' },
        Condition: { Bool: { 'aws:SecureTransport': 'false' } },
      }),
    );
    const reads = statements.filter(
      (statement) => statement.Effect === 'Allow' && [statement.Action].flat().includes('s3:GetObject'),
    );
    expect(reads).toHaveLength(1);
    expect(reads[0].Principal).toEqual({ Service: 'cloudfront.amazonaws.com' });
    expect(deployed(pages, reads[0].Condition)).toEqual({
      StringEquals: { 'AWS:SourceArn': `arn:aws:cloudfront::123456789012:distribution/${DISTRIBUTION_ID}` },
    });
    // Nobody else may read: no statement allows any principal at all.
    expect(
      statements.filter((s) => s.Effect === 'Allow' && JSON.stringify(s.Principal).includes('"*"')),
    ).toEqual([]);
  });

  it('serves the bucket through origin access control, https only, index.html for / and every page path', () => {
    const config = only(pages, 'AWS::CloudFront::Distribution').Properties.DistributionConfig;
    const [origin] = config.Origins;
    expect(origin.OriginAccessControlId).toEqual({ 'Fn::GetAtt': [expect.any(String), 'Id'] });
    expect(
      only(pages, 'AWS::CloudFront::OriginAccessControl').Properties.OriginAccessControlConfig,
    ).toMatchObject({
      OriginAccessControlOriginType: 's3',
      SigningBehavior: 'always',
    });
    expect(origin.S3OriginConfig).toEqual({ OriginAccessIdentity: '' });
    expect(config.DefaultRootObject).toBe('index.html');
    expect(config.DefaultCacheBehavior.ViewerProtocolPolicy).toBe('redirect-to-https');
    expect(config.DefaultCacheBehavior.AllowedMethods).toEqual(['GET', 'HEAD']);
    expect(config.CustomErrorResponses).toEqual(
      [403, 404].map((code) => ({
        ErrorCode: code,
        ResponseCode: 200,
        ResponsePagePath: '/index.html',
        ErrorCachingMinTTL: 0,
      })),
    );
  });

  it("sends the pages' headers, the CSP allowing the region's execute-api hosts and the Cognito domain", () => {
    const policy = only(pages, 'AWS::CloudFront::ResponseHeadersPolicy').Properties;
    expect(headersSent(deployed(pages, policy.ResponseHeadersPolicyConfig))).toEqual(
      consolePagesHeaders({
        apiOrigins: ['https://*.execute-api.eu-west-1.amazonaws.com'],
        signInOrigin: COGNITO,
      }),
    );
    const distribution = only(pages, 'AWS::CloudFront::Distribution').Properties.DistributionConfig;
    expect(distribution.DefaultCacheBehavior.ResponseHeadersPolicyId).toEqual({
      Ref: Object.keys(pages.findResources('AWS::CloudFront::ResponseHeadersPolicy'))[0],
    });
  });

  it('narrows connect-src in index.html to exactly the console API and the Cognito domain', () => {
    const shell = deployedFile(app, files, 1, PAGE_FILES.shell);
    const meta = /<meta http-equiv="Content-Security-Policy" content="([^"]*)">\n/.exec(shell);
    expect(meta?.[1]).toBe(`connect-src 'self' ${EXECUTE_API} ${COGNITO}`);
    // Before the style and the script, and otherwise the shell the build writes.
    expect(shell.indexOf(meta?.[0] ?? '')).toBeLessThan(shell.indexOf('<link'));
    expect(shell.replace(meta?.[0] ?? '', '')).toBe(pageShell('/'));
  });

  it("writes config.json with the console API's URL, the Cognito endpoints and the app client", () => {
    const config = ConsolePagesConfig.parse(JSON.parse(deployedFile(app, files, 2, CONFIG_FILE)));
    expect(config).toEqual({
      apiUrl: EXECUTE_API,
      signIn: {
        authorizeUrl: `${COGNITO}/oauth2/authorize`,
        tokenUrl: `${COGNITO}/oauth2/token`,
        logoutUrl: `${COGNITO}/logout`,
        clientId: PARAMETERS['jwt-audience'],
        scopes: [...CONSOLE_SIGN_IN_SCOPES],
      },
    });
    const client = consoleClient(app);
    expect([...client.AllowedOAuthScopes].sort()).toEqual([...CONSOLE_SIGN_IN_SCOPES].sort());
  });

  it('copies the files into the pages bucket, then invalidates the distribution', () => {
    const { ServiceToken: _handler, ...properties } = only(files, 'Custom::CDKBucketDeployment').Properties;
    const deployment = deployed(files, properties);
    expect(deployment).toMatchObject({
      DestinationBucketName: PARAMETERS['console-pages-bucket-name'],
      DistributionId: PARAMETERS['console-pages-distribution-id'],
      DistributionPaths: ['/*'],
      Prune: true,
      SystemMetadata: { 'cache-control': 'no-cache' },
    });
    expect(deployment.SourceObjectKeys).toHaveLength(3);
  });

  it("publishes the distribution's URL, which the app client, the CORS and the functions use", () => {
    const published = Object.values<Json>(pages.findResources('AWS::SSM::Parameter')).find(
      (parameter) => parameter.Properties.Name === `/business-platform/${STAGE}/console-pages-url`,
    );
    expect(deployed(pages, published.Properties.Value)).toBe(PARAMETERS['console-pages-url']);

    const site = PARAMETERS['console-pages-url'];
    const client = consoleClient(app);
    expect(client.CallbackURLs).toEqual([`${site}/auth/callback`]);
    expect(client.LogoutURLs).toEqual([`${site}/`]);

    const api = app.template('-Api');
    const consoleApi = Object.values<Json>(api.findResources('AWS::ApiGatewayV2::Api')).find(
      (resource) => resource.Properties.CorsConfiguration,
    );
    expect(deployed(api, consoleApi.Properties.CorsConfiguration.AllowOrigins)).toEqual([site]);

    const environments = functionEnvironments(app);
    const linking = [...environments].filter(([, environment]) => 'CONSOLE_URL' in environment);
    expect(linking.map(([operationId]) => operationId)).toEqual(
      expect.arrayContaining(['authorizeOAuthClient', 'invitePlatformAdmin']),
    );
    for (const [operationId, environment] of linking) expect(environment.CONSOLE_URL, operationId).toBe(site);
    const mcp = [...environments.values()].filter((environment) => 'MCP_ALLOWED_ORIGINS' in environment);
    expect(mcp.length).toBeGreaterThan(0);
    for (const environment of mcp) expect(environment.MCP_ALLOWED_ORIGINS).toBe(site);
  });

  it('deploys the site before the stacks that read its URL, and the files after the API', () => {
    const { pages: site, stateful, api, stages, pagesFiles } = app.built;
    expect(stateful.dependencies).toContain(site);
    expect(api.dependencies).toContain(site);
    expect(pagesFiles?.dependencies).toEqual(expect.arrayContaining([site, stateful, stages]));
  });
});
