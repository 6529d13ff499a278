import * as z from '#lib/validation/zod.ts';
import { ContextError } from './context-error.ts';
import type { StageSettingKey } from './stage-settings.ts';

/** One API's custom domain: the name clients use and the ACM certificate API Gateway serves it with. */
export interface ApiDomain {
  domainName: string;
  certificateArn: string;
}

/** The Route 53 public hosted zone the stacks write the domains' alias records into. */
export interface HostedZoneSetting {
  id: string;
  name: string;
}

export interface ApiDomainSettings {
  /** The assistant API's domain (settings `domainName`, `certificateArn`): the OAuth issuer's host. */
  assistantDomain: ApiDomain | undefined;
  /** The console API's domain (`consoleApiDomainName`, with `consoleCertificateArn` or `certificateArn`). */
  consoleApiDomain: ApiDomain | undefined;
  hostedZone: HostedZoneSetting | undefined;
  /**
   * The OAuth issuer when it is not the assistant API's execute-api URL: `https://<domainName>`,
   * or the `publicUrl` setting, which must be that URL unless `publicUrlServedExternally` says a
   * proxy or CDN of the customer's serves it.
   */
  publicUrl: string | undefined;
  publicUrlServedExternally: boolean;
}

/**
 * An ACM certificate's ARN, whose region it names: `arn:<partition>:acm:<region>:<account>:certificate/<id>`.
 * API Gateway's regional custom domains take a certificate of their own region only.
 */
const CERTIFICATE_ARN =
  /^arn:aws(?:-cn|-us-gov)?:acm:(?<region>[a-z]{2}(?:-[a-z]+)+-\d):\d{12}:certificate\/[0-9a-f-]{36}$/;

/** The region an ACM certificate ARN names, or undefined when it is not one. */
export const certificateRegion = (arn: string): string | undefined =>
  CERTIFICATE_ARN.exec(arn)?.groups?.region;

/** A Route 53 hosted zone id (the part after `/hostedzone/`). */
const HOSTED_ZONE_ID = /^Z[A-Z0-9]{1,31}$/;

const isDomainName = (value: string) => z.regexes.domain.test(value);

/** Whether `domain` is the zone's apex or lies under it. */
const inZone = (domain: string, zone: string) => domain === zone || domain.endsWith(`.${zone}`);

/**
 * The custom-domain settings, checked together: each name is a DNS name, each certificate an ACM
 * ARN of one region (the region the stacks deploy to, when CDK says which), each domain has a
 * certificate and lies in the hosted zone, and the issuer is a URL something in the stacks serves.
 * `deployRegion` is the region env-agnostic stacks go to: the CDK CLI tells the app in
 * `CDK_DEFAULT_REGION`, and a synth without AWS configuration does not know it.
 */
export function readApiDomainSettings(
  raw: (key: StageSettingKey) => string | undefined,
  flag: (key: StageSettingKey, fallback: boolean) => boolean,
  deployRegion: string | undefined,
  /** The console pages' own name (setting `consoleDomainName`), which the hosted zone must hold too. */
  consolePagesDomainName?: string,
): ApiDomainSettings {
  const domainSetting = (key: 'domainName' | 'consoleApiDomainName'): string | undefined => {
    const value = raw(key)?.trim().toLowerCase().replace(/\.$/, '');
    if (value !== undefined && !isDomainName(value)) {
      throw new ContextError(
        `context ${key} must be a DNS name such as api.yourcompany.com (no scheme, path or wildcard), not "${value}"`,
      );
    }
    return value;
  };
  const certificateSetting = (key: 'certificateArn' | 'consoleCertificateArn'): string | undefined => {
    const value = raw(key)?.trim();
    if (value === undefined) return undefined;
    const region = certificateRegion(value);
    if (region === undefined) {
      throw new ContextError(
        `context ${key} must be an ACM certificate ARN (arn:aws:acm:<region>:<account>:certificate/<id>), not "${value}"`,
      );
    }
    if (deployRegion && region !== deployRegion) {
      throw new ContextError(
        `context ${key} is a certificate of ${region}, but the stacks deploy to ${deployRegion}: API Gateway's regional custom domains take a certificate of their own region; request or import one in ${deployRegion}`,
      );
    }
    return value;
  };

  const domainName = domainSetting('domainName');
  const consoleApiDomainName = domainSetting('consoleApiDomainName');
  const certificateArn = certificateSetting('certificateArn');
  const consoleCertificateArn = certificateSetting('consoleCertificateArn');

  if (domainName !== undefined && certificateArn === undefined) {
    throw new ContextError(
      `context domainName ${domainName} needs certificateArn: an ACM certificate covering it, in the region the stacks deploy to`,
    );
  }
  if (consoleApiDomainName !== undefined && (consoleCertificateArn ?? certificateArn) === undefined) {
    throw new ContextError(
      `context consoleApiDomainName ${consoleApiDomainName} needs a certificate: consoleCertificateArn, or certificateArn when that one covers it too`,
    );
  }
  if (certificateArn !== undefined && domainName === undefined && consoleApiDomainName === undefined) {
    throw new ContextError(
      'context certificateArn is set, but no domainName or consoleApiDomainName uses it',
    );
  }
  if (consoleCertificateArn !== undefined && consoleApiDomainName === undefined) {
    throw new ContextError('context consoleCertificateArn is set, but consoleApiDomainName is not');
  }
  if (domainName !== undefined && domainName === consoleApiDomainName) {
    throw new ContextError(
      `context domainName and consoleApiDomainName are both ${domainName}: each API needs its own name`,
    );
  }
  const regions = new Set(
    [certificateArn, consoleCertificateArn].filter(Boolean).map((arn) => certificateRegion(String(arn))),
  );
  if (regions.size > 1) {
    throw new ContextError(
      `context certificateArn and consoleCertificateArn are in different regions (${[...regions].join(', ')}): both APIs live in the one region the stacks deploy to`,
    );
  }

  const hostedZone = readHostedZone(raw, [domainName, consoleApiDomainName, consolePagesDomainName]);
  const assistantDomain = domainName && certificateArn ? { domainName, certificateArn } : undefined;
  const consoleCertificate = consoleCertificateArn ?? certificateArn;
  const consoleApiDomain =
    consoleApiDomainName && consoleCertificate
      ? { domainName: consoleApiDomainName, certificateArn: consoleCertificate }
      : undefined;
  const publicUrlServedExternally = flag('publicUrlServedExternally', false);
  return {
    assistantDomain,
    consoleApiDomain,
    hostedZone,
    publicUrl: readPublicUrl(raw('publicUrl'), domainName, publicUrlServedExternally),
    publicUrlServedExternally,
  };
}

function readHostedZone(
  raw: (key: StageSettingKey) => string | undefined,
  domains: (string | undefined)[],
): HostedZoneSetting | undefined {
  const id = raw('hostedZoneId')?.trim();
  const name = raw('hostedZoneName')?.trim().toLowerCase().replace(/\.$/, '');
  if (id === undefined && name === undefined) return undefined;
  if (id === undefined || name === undefined) {
    throw new ContextError(
      'context hostedZoneId and hostedZoneName go together: the Route 53 zone the domain names are records of',
    );
  }
  if (!HOSTED_ZONE_ID.test(id)) {
    throw new ContextError(
      `context hostedZoneId must be a Route 53 hosted zone id such as Z0123456789ABCDEFGHIJ, not "${id}"`,
    );
  }
  if (!isDomainName(name)) throw new ContextError(`context hostedZoneName must be a DNS name, not "${name}"`);
  const named = domains.filter((domain): domain is string => domain !== undefined);
  if (named.length === 0) {
    throw new ContextError(
      'context hostedZoneId is set, but no domainName, consoleApiDomainName or consoleDomainName needs records',
    );
  }
  for (const domain of named) {
    if (!inZone(domain, name)) {
      throw new ContextError(
        `context hostedZoneName ${name} does not hold ${domain}: a zone holds only names under it`,
      );
    }
  }
  return { id, name };
}

/**
 * The issuer URL, refused when nothing in the stacks would serve it: every function names it as
 * `OAUTH_ISSUER`, so an issuer no one answers at breaks discovery, JWKS and every token check.
 */
function readPublicUrl(
  setting: string | undefined,
  domainName: string | undefined,
  servedExternally: boolean,
): string | undefined {
  const served = domainName === undefined ? undefined : `https://${domainName}`;
  if (setting === undefined) {
    if (servedExternally) {
      throw new ContextError(
        'context publicUrlServedExternally is true, but publicUrl is not set: name the URL your proxy or CDN serves',
      );
    }
    return served;
  }
  let url: URL;
  try {
    url = new URL(setting);
  } catch {
    throw new ContextError(
      `context publicUrl must be an https URL such as https://api.yourcompany.com, not "${setting}"`,
    );
  }
  if (
    url.protocol !== 'https:' ||
    url.username ||
    url.password ||
    url.search ||
    url.hash ||
    !isDomainName(url.hostname)
  ) {
    throw new ContextError(
      `context publicUrl must be an https URL with a DNS host and no credentials, query or fragment, not "${setting}"`,
    );
  }
  const publicUrl = `${url.origin}${url.pathname}`.replace(/\/+$/, '');
  if (servedExternally || publicUrl === served) return publicUrl;
  const orServedElsewhere =
    'or set publicUrlServedExternally: true if a proxy or CDN of yours serves it and forwards to the assistant API';
  if (served === undefined) {
    throw new ContextError(
      `context publicUrl ${publicUrl} names a URL nothing in the stacks serves: set domainName ${url.hostname} with certificateArn to give the assistant API that domain (publicUrl then defaults to https://${url.hostname}), ${orServedElsewhere}`,
    );
  }
  throw new ContextError(
    `context publicUrl ${publicUrl} is not the assistant API's domain ${served} (${url.origin === served ? 'it has a path' : 'another host'}): drop publicUrl (it defaults to ${served}), ${orServedElsewhere}`,
  );
}
