import { CfnOutput, Stack } from 'aws-cdk-lib';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as acm from 'aws-cdk-lib/aws-certificatemanager';
import * as route53 from 'aws-cdk-lib/aws-route53';
import * as targets from 'aws-cdk-lib/aws-route53-targets';
import { Construct } from 'constructs';
import type { ApiDomain, HostedZoneSetting } from './api-domain-settings.ts';

export interface ApiCustomDomainProps {
  /** Names the stack outputs: `Assistant` or `Console`. */
  label: string;
  api: apigw.IHttpApi;
  /** The API's `$default` stage, which the mapping needs to exist first. */
  stage: apigw.CfnStage;
  domain: ApiDomain;
  /** Where to write alias records; without it the outputs name the target to point DNS at. */
  hostedZone: HostedZoneSetting | undefined;
}

/**
 * One HTTP API reached at a name of the customer's: an API Gateway regional custom domain with
 * the ACM certificate, its mapping to the API's `$default` stage at the root, and either Route 53
 * alias records (A and AAAA; the domain answers over IPv4 and IPv6) or outputs naming the regional
 * target for whoever keeps the DNS.
 */
export class ApiCustomDomain extends Construct {
  readonly domainName: apigw.DomainName;

  constructor(scope: Construct, id: string, props: ApiCustomDomainProps) {
    super(scope, id);
    const { domain, label } = props;
    this.domainName = new apigw.DomainName(this, 'DomainName', {
      domainName: domain.domainName,
      certificate: acm.Certificate.fromCertificateArn(this, 'Certificate', domain.certificateArn),
      endpointType: apigw.EndpointType.REGIONAL,
      securityPolicy: apigw.SecurityPolicy.TLS_1_2,
      ipAddressType: apigw.IpAddressType.DUAL_STACK,
    });
    const mapping = new apigw.ApiMapping(this, 'Mapping', {
      api: props.api,
      domainName: this.domainName,
      stage: apigw.HttpStage.fromHttpStageAttributes(this, 'Stage', {
        api: props.api,
        stageName: props.stage.stageName ?? '$default',
      }),
    });
    mapping.node.addDependency(props.stage);

    const { regionalDomainName, regionalHostedZoneId } = this.domainName;
    if (props.hostedZone) {
      const zone = route53.HostedZone.fromHostedZoneAttributes(this, 'Zone', {
        hostedZoneId: props.hostedZone.id,
        zoneName: props.hostedZone.name,
      });
      const target = route53.RecordTarget.fromAlias(
        new targets.ApiGatewayv2DomainProperties(regionalDomainName, regionalHostedZoneId),
      );
      // The full name with its final dot: the record is exactly the domain, whatever the zone.
      const recordName = `${domain.domainName}.`;
      new route53.ARecord(this, 'AliasA', { zone, recordName, target });
      new route53.AaaaRecord(this, 'AliasAAAA', { zone, recordName, target });
      return;
    }
    const stack = Stack.of(this);
    new CfnOutput(stack, `${label}ApiDomainTarget`, {
      value: regionalDomainName,
      description: `Point ${domain.domainName} here: a CNAME, or an alias A and AAAA record with ${label}ApiDomainHostedZoneId`,
    });
    new CfnOutput(stack, `${label}ApiDomainHostedZoneId`, {
      value: regionalHostedZoneId,
      description: `The hosted zone of ${label}ApiDomainTarget, for a Route 53 alias record`,
    });
  }
}
