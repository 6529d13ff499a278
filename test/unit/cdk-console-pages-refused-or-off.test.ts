import { Template } from 'aws-cdk-lib/assertions';
import { describe, expect, it, vi } from 'vitest';
import { buildServiceApp } from '../../infra/service-app.ts';
import { readServiceContext } from '../../infra/service-context.ts';
import { newApp } from '../support/cdk-app.ts';
import {
  API_CERTIFICATE,
  only,
  PAGES_CERTIFICATE,
  SYNTH_TIMEOUT,
} from '../support/console-pages-deployment.ts';

// The region CDK's CLI would tell the app; the templates are read as deployed there (DEPLOYED_AT).
vi.stubEnv('CDK_DEFAULT_REGION', 'eu-west-1');

describe('console pages refused', () => {
  const read = (settings: Record<string, string>) => () => readServiceContext(newApp(settings));

  it('without managed login: srp sign-in, or another issuer', () => {
    expect(read({ consolePages: 'true', consoleSignIn: 'srp' })).toThrow(
      'context consolePages needs consoleSignIn hosted',
    );
    expect(
      read({ consolePages: 'true', issuer: 'https://id.customer.test', issuerAudience: 'console' }),
    ).toThrow("context consolePages signs in through the service's Cognito user pool");
  });

  it('with a certificate CloudFront cannot use, or a name without its certificate', () => {
    const pages = { consolePages: 'true', consoleDomainName: 'console.customer.test' };
    expect(read({ ...pages, consolePagesCertificateArn: API_CERTIFICATE })).toThrow(
      'context consolePagesCertificateArn is a certificate of eu-west-1: CloudFront takes certificates of us-east-1 only',
    );
    expect(read({ ...pages, consolePagesCertificateArn: 'certificate' })).toThrow(
      'context consolePagesCertificateArn must be an ACM certificate ARN',
    );
    expect(read(pages)).toThrow(
      'context consoleDomainName console.customer.test needs consolePagesCertificateArn',
    );
    expect(read({ consolePages: 'true', consolePagesCertificateArn: PAGES_CERTIFICATE })).toThrow(
      'context consolePagesCertificateArn is set, but consoleDomainName is not',
    );
    expect(read({ ...pages, consoleDomainName: 'https://console.customer.test' })).toThrow(
      'context consoleDomainName must be a DNS name',
    );
  });

  it('with their settings but without consolePages', () => {
    expect(read({ consoleDomainName: 'console.customer.test' })).toThrow(
      'context consoleDomainName is set, but consolePages is not true',
    );
  });

  it('with a hosted zone that does not hold their name', () => {
    expect(
      read({
        consolePages: 'true',
        consoleDomainName: 'console.elsewhere.test',
        consolePagesCertificateArn: PAGES_CERTIFICATE,
        hostedZoneId: 'Z0123456789ABCDEFGHIJ',
        hostedZoneName: 'customer.test',
      }),
    ).toThrow('context hostedZoneName customer.test does not hold console.elsewhere.test');
  });
});

describe('without consolePages', () => {
  it(
    'has no pages stacks, no bucket deployment and no distribution; the app client calls back to consoleUrl',
    () => {
      const built = buildServiceApp({ app: newApp() });
      expect(built.pages).toBeUndefined();
      expect(built.pagesFiles).toBeUndefined();
      const stacks = [built.stateful, built.api, ...built.routeStacks, built.stages];
      for (const stack of stacks) {
        const template = Template.fromStack(stack);
        template.resourceCountIs('AWS::CloudFront::Distribution', 0);
        template.resourceCountIs('Custom::CDKBucketDeployment', 0);
        template.resourceCountIs('AWS::CloudFront::ResponseHeadersPolicy', 0);
        expect(JSON.stringify(template.toJSON())).not.toContain('console-pages');
      }
      const client = only(Template.fromStack(built.stateful), 'AWS::Cognito::UserPoolClient');
      expect(client.Properties.CallbackURLs).toEqual(['https://console.example.com/auth/callback']);
    },
    SYNTH_TIMEOUT,
  );
});
