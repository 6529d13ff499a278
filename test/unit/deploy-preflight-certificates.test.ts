import { describe, expect, it, vi } from 'vitest';
import { accountFindings, certificateCovers } from '../../infra/deploy-preflight.ts';
import { readServiceContext } from '../../infra/service-context.ts';
import { newApp } from '../support/cdk-app.ts';
import { type Account, clients } from '../support/preflight-account.ts';

// npm run deploy reads the settings before CDK's CLI could tell the app a region: none is known.
vi.stubEnv('CDK_DEFAULT_REGION', '');

describe("deploy preflight, the custom domains' certificates", () => {
  const account = '123456789012';
  const arn = (region: string, id: string) => `arn:aws:acm:${region}:${account}:certificate/${id}`;
  const SHARED = arn('eu-west-1', '0b5e2a4c-6d1f-4e8a-9c3b-7f2d1e0a5b6c');
  const OTHER = arn('eu-west-1', '1c6f3b5d-7e2a-4f9b-8d4c-8a3e2f1b6c7d');
  const issued = (...names: string[]) => ({
    Status: 'ISSUED',
    Type: 'AMAZON_ISSUED',
    DomainName: names[0],
    SubjectAlternativeNames: names,
  });
  const bothDomains = readServiceContext(
    newApp({
      domainName: 'api.customer.test',
      consoleApiDomainName: 'console-api.customer.test',
      certificateArn: SHARED,
    }),
  );
  const findings = (account: Omit<Account, 'bootstrapped' | 'concurrency'>, context = bothDomains) =>
    accountFindings(clients({ bootstrapped: true, concurrency: 1000, ...account }), context, 'eu-west-1');

  it('has nothing to say about an issued certificate that covers both names, asked about once', async () => {
    const asked: string[] = [];
    expect(
      await findings({ certificates: { [SHARED]: issued('customer.test', '*.customer.test') }, asked }),
    ).toEqual({ refusals: [], warnings: [] });
    expect(asked).toEqual([SHARED]);
  });

  it('asks ACM nothing when no domain is set', async () => {
    const asked: string[] = [];
    expect(await findings({ asked }, readServiceContext(newApp()))).toEqual({ refusals: [], warnings: [] });
    expect(asked).toEqual([]);
  });

  it('refuses a certificate still waiting for validation', async () => {
    const { refusals } = await findings({
      certificates: { [SHARED]: { ...issued('*.customer.test'), Status: 'PENDING_VALIDATION' } },
    });
    expect(refusals).toEqual([
      `the certificate ${SHARED} is PENDING_VALIDATION, not ISSUED: publish the CNAME records ACM shows for its validation and wait until it is issued`,
    ]);
  });

  it('refuses a certificate the account does not have', async () => {
    const { refusals } = await findings({ certificates: {} });
    expect(refusals).toEqual([
      `the certificate ${SHARED} is not in this account and region: request it in ACM (eu-west-1) for api.customer.test, console-api.customer.test`,
    ]);
  });

  it('refuses a certificate that does not name a domain using it; a wildcard covers one label only', async () => {
    const { refusals } = await findings({ certificates: { [SHARED]: issued('api.customer.test') } });
    expect(refusals).toEqual([
      `the certificate ${SHARED} covers api.customer.test, not console-api.customer.test: request one that names it (or a wildcard over it)`,
    ]);
    expect(certificateCovers('*.customer.test', 'api.customer.test')).toBe(true);
    expect(certificateCovers('*.customer.test', 'customer.test')).toBe(false);
    expect(certificateCovers('*.customer.test', 'eu.api.customer.test')).toBe(false);
    expect(certificateCovers('API.customer.test', 'api.customer.test')).toBe(true);
  });

  it('refuses a certificate of another region without asking ACM, since the regional domain could not use it', async () => {
    const elsewhere = arn('us-east-1', '2d7a4c6e-8f3b-4a0c-9e5d-9b4f3a2c7d8e');
    const asked: string[] = [];
    const { refusals } = await findings(
      { asked },
      readServiceContext(newApp({ domainName: 'api.customer.test', certificateArn: elsewhere })),
    );
    expect(refusals).toEqual([
      `the certificate ${elsewhere} is in us-east-1, but this deploy goes to eu-west-1: API Gateway's regional custom domains take a certificate of their own region; request or import one for api.customer.test in eu-west-1`,
    ]);
    expect(asked).toEqual([]);
  });

  it("checks the console API's own certificate, and warns that an imported one does not renew", async () => {
    const context = readServiceContext(
      newApp({
        domainName: 'api.customer.test',
        certificateArn: SHARED,
        consoleApiDomainName: 'console-api.customer.test',
        consoleCertificateArn: OTHER,
      }),
    );
    const asked: string[] = [];
    const { refusals, warnings } = await findings(
      {
        asked,
        certificates: {
          [SHARED]: issued('api.customer.test'),
          [OTHER]: {
            ...issued('console-api.customer.test'),
            Type: 'IMPORTED',
            NotAfter: new Date('2031-03-01T00:00:00Z'),
          },
        },
      },
      context,
    );
    expect(refusals).toEqual([]);
    expect(warnings).toEqual([
      `the certificate ${OTHER} was imported: ACM does not renew it, so import its successor before 2031-03-01`,
    ]);
    expect(asked).toEqual([SHARED, OTHER]);
  });

  describe('the console pages certificate, which CloudFront takes from us-east-1 only', () => {
    const PAGES = arn('us-east-1', '2d7a4c6e-8f1b-4a3c-9e5d-0b1c2d3e4f5a');
    const pagesOnTheirName = readServiceContext(
      newApp({
        consolePages: 'true',
        consoleDomainName: 'console.customer.test',
        consolePagesCertificateArn: PAGES,
      }),
    );

    it('asks ACM in us-east-1 about it, whatever region the deploy goes to', async () => {
      const asked: string[] = [];
      expect(
        await findings({ certificates: { [PAGES]: issued('*.customer.test') }, asked }, pagesOnTheirName),
      ).toEqual({ refusals: [], warnings: [] });
      expect(asked).toEqual([PAGES]);
    });

    it('refuses it missing, not issued, or not naming consoleDomainName', async () => {
      expect((await findings({ certificates: {} }, pagesOnTheirName)).refusals).toEqual([
        `the certificate ${PAGES} is not in this account and region: request it in ACM (us-east-1) for console.customer.test`,
      ]);
      const pending = { ...issued('console.customer.test'), Status: 'PENDING_VALIDATION' };
      expect((await findings({ certificates: { [PAGES]: pending } }, pagesOnTheirName)).refusals).toEqual([
        `the certificate ${PAGES} is PENDING_VALIDATION, not ISSUED: publish the CNAME records ACM shows for its validation and wait until it is issued`,
      ]);
      const elsewhere = { [PAGES]: issued('pages.customer.test') };
      expect((await findings({ certificates: elsewhere }, pagesOnTheirName)).refusals).toEqual([
        `the certificate ${PAGES} covers pages.customer.test, not console.customer.test: request one that names it (or a wildcard over it)`,
      ]);
    });

    it('checks it beside the API certificates, each in its own region', async () => {
      const asked: string[] = [];
      const context = readServiceContext(
        newApp({
          consolePages: 'true',
          consoleDomainName: 'console.customer.test',
          consolePagesCertificateArn: PAGES,
          domainName: 'api.customer.test',
          certificateArn: SHARED,
        }),
      );
      const { refusals } = await findings(
        {
          certificates: { [SHARED]: issued('api.customer.test'), [PAGES]: issued('api.customer.test') },
          asked,
        },
        context,
      );
      expect(refusals).toEqual([
        `the certificate ${PAGES} covers api.customer.test, not console.customer.test: request one that names it (or a wildcard over it)`,
      ]);
      expect(asked.sort()).toEqual([PAGES, SHARED].sort());
    });
  });
});
