import { Duration } from 'aws-cdk-lib';
import * as cloudfront from 'aws-cdk-lib/aws-cloudfront';
import { type ConsolePagesOrigins, consolePagesHeaders } from '../console-pages/headers.ts';

/**
 * The console pages' headers (console-pages/headers.ts) for origins that may be deploy-time
 * values (CDK tokens such as the region), which `new URL` cannot parse: the headers are made for
 * stand-in origins, which are then replaced by the real ones in the text.
 */
export function consolePagesHeadersFor({
  apiOrigins,
  signInOrigin,
}: ConsolePagesOrigins): Record<string, string> {
  const real = [...apiOrigins, signInOrigin];
  const standIn = (index: number) => `https://origin-${index}.deploy-time.invalid`;
  const headers = consolePagesHeaders({
    apiOrigins: apiOrigins.map((_, index) => standIn(index)),
    signInOrigin: standIn(apiOrigins.length),
  });
  return Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [
      name,
      real.reduce((text, origin, index) => text.replaceAll(standIn(index), origin), value),
    ]),
  );
}

/**
 * The `connect-src` directive of those headers' CSP, as the content of a `<meta>` CSP: a page
 * enforces every policy it is given, so the meta element can only narrow the header's.
 */
export function connectSrcPolicy(origins: ConsolePagesOrigins): string {
  const policy = consolePagesHeadersFor(origins)['content-security-policy'] ?? '';
  const directive = policy.split('; ').find((part) => part.startsWith('connect-src '));
  if (!directive) throw new Error('the console pages CSP has no connect-src directive');
  return directive;
}

/** `index.html` with a `<meta>` CSP first in its head, before anything it loads. */
export function withMetaPolicy(shell: string, policy: string): string {
  if (!/<head>/i.test(shell)) throw new Error('the console pages shell has no <head>');
  const attribute = policy.replaceAll('&', '&amp;').replaceAll('"', '&quot;');
  return shell.replace(
    /<head>/i,
    `<head>\n<meta http-equiv="Content-Security-Policy" content="${attribute}">`,
  );
}

const REFERRER_POLICIES = new Map<string, cloudfront.HeadersReferrerPolicy>(
  Object.values(cloudfront.HeadersReferrerPolicy).map((policy) => [policy, policy]),
);
const FRAME_OPTIONS = new Map<string, cloudfront.HeadersFrameOption>(
  Object.values(cloudfront.HeadersFrameOption).map((option) => [option, option]),
);

/**
 * A CloudFront response headers policy's settings that send exactly these headers, overriding
 * whatever the origin sends. CloudFront takes its security headers (CSP, HSTS, referrer policy,
 * nosniff, frame options) only as structured settings, so each value is parsed back into them;
 * a value they cannot express is refused rather than sent differently.
 */
export function responseHeadersPolicyProps(
  headers: Record<string, string>,
): Pick<cloudfront.ResponseHeadersPolicyProps, 'securityHeadersBehavior' | 'customHeadersBehavior'> {
  const security: {
    -readonly [K in keyof cloudfront.ResponseSecurityHeadersBehavior]: cloudfront.ResponseSecurityHeadersBehavior[K];
  } = {};
  const custom: cloudfront.ResponseCustomHeader[] = [];
  const cannot = (name: string, value: string): never => {
    throw new Error(`CloudFront's response headers policy cannot send ${name}: ${value}`);
  };
  for (const [name, value] of Object.entries(headers)) {
    switch (name.toLowerCase()) {
      case 'content-security-policy':
        security.contentSecurityPolicy = { contentSecurityPolicy: value, override: true };
        break;
      case 'strict-transport-security': {
        const [maxAge, ...flags] = value.split(';').map((part) => part.trim());
        const seconds = /^max-age=(\d+)$/i.exec(maxAge ?? '')?.[1];
        const known = flags.every((flag) => /^(includeSubDomains|preload)$/i.test(flag));
        if (seconds === undefined || !known) cannot(name, value);
        security.strictTransportSecurity = {
          accessControlMaxAge: Duration.seconds(Number(seconds)),
          includeSubdomains: flags.some((flag) => /^includeSubDomains$/i.test(flag)),
          preload: flags.some((flag) => /^preload$/i.test(flag)),
          override: true,
        };
        break;
      }
      case 'referrer-policy':
        security.referrerPolicy = {
          referrerPolicy: REFERRER_POLICIES.get(value) ?? cannot(name, value),
          override: true,
        };
        break;
      case 'x-content-type-options':
        if (value !== 'nosniff') cannot(name, value);
        security.contentTypeOptions = { override: true };
        break;
      case 'x-frame-options':
        security.frameOptions = {
          frameOption: FRAME_OPTIONS.get(value) ?? cannot(name, value),
          override: true,
        };
        break;
      default:
        custom.push({ header: name, value, override: true });
    }
  }
  return {
    securityHeadersBehavior: security,
    ...(custom.length > 0 ? { customHeadersBehavior: { customHeaders: custom } } : {}),
  };
}
