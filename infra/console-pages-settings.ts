import * as z from '#lib/validation/zod.ts';
import { type ApiDomain, certificateRegion } from './api-domain-settings.ts';
import { ContextError } from './context-error.ts';
import type { StageSettingKey } from './stage-settings.ts';

/** CloudFront serves a custom name only with an ACM certificate of this region. */
export const CLOUDFRONT_CERTIFICATE_REGION = 'us-east-1';

/** The console pages deployed with the service (setting `consolePages`). */
export interface ConsolePagesSettings {
  /**
   * The pages' own name and its certificate (settings `consoleDomainName`,
   * `consolePagesCertificateArn`); unset: the distribution's `*.cloudfront.net` name.
   */
  domain: ApiDomain | undefined;
}

/**
 * The console pages' settings, checked together: `consoleDomainName` is a DNS name with a
 * certificate, the certificate an ACM ARN of us-east-1 (CloudFront takes no other region's), and
 * neither is set without `consolePages: true`.
 */
export function readConsolePagesSettings(
  raw: (key: StageSettingKey) => string | undefined,
  flag: (key: StageSettingKey, fallback: boolean) => boolean,
): ConsolePagesSettings | undefined {
  const enabled = flag('consolePages', false);
  const domainName = raw('consoleDomainName')?.trim().toLowerCase().replace(/\.$/, '');
  const certificateArn = raw('consolePagesCertificateArn')?.trim();
  if (!enabled) {
    const stray = [domainName && 'consoleDomainName', certificateArn && 'consolePagesCertificateArn'].filter(
      Boolean,
    );
    if (stray.length > 0) {
      throw new ContextError(
        `context ${stray.join(' and ')} ${stray.length > 1 ? 'are' : 'is'} set, but consolePages is not true: they name the deployed console pages`,
      );
    }
    return undefined;
  }
  if (domainName !== undefined && !z.regexes.domain.test(domainName)) {
    throw new ContextError(
      `context consoleDomainName must be a DNS name such as console.yourcompany.com (no scheme, path or wildcard), not "${domainName}"`,
    );
  }
  if (certificateArn !== undefined) {
    const region = certificateRegion(certificateArn);
    if (region === undefined) {
      throw new ContextError(
        `context consolePagesCertificateArn must be an ACM certificate ARN (arn:aws:acm:us-east-1:<account>:certificate/<id>), not "${certificateArn}"`,
      );
    }
    if (region !== CLOUDFRONT_CERTIFICATE_REGION) {
      throw new ContextError(
        `context consolePagesCertificateArn is a certificate of ${region}: CloudFront takes certificates of ${CLOUDFRONT_CERTIFICATE_REGION} only, whatever region the stacks deploy to; request or import one there`,
      );
    }
  }
  if (domainName !== undefined && certificateArn === undefined) {
    throw new ContextError(
      `context consoleDomainName ${domainName} needs consolePagesCertificateArn: an ACM certificate of ${CLOUDFRONT_CERTIFICATE_REGION} covering it`,
    );
  }
  if (certificateArn !== undefined && domainName === undefined) {
    throw new ContextError('context consolePagesCertificateArn is set, but consoleDomainName is not');
  }
  return { domain: domainName && certificateArn ? { domainName, certificateArn } : undefined };
}
