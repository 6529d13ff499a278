import { CfnOutput, type RemovalPolicy, Stack } from 'aws-cdk-lib';
import * as ses from 'aws-cdk-lib/aws-ses';
import { Construct } from 'constructs';
import type { ServiceContext } from './service-context.ts';

/**
 * The configuration set every e-mail of a stage is sent through. Its name is fixed by the stage,
 * so the sending functions and the alarms name it without a reference to the stateful stack.
 */
export const mailConfigurationSetName = (stage: string) => `business-platform-${stage}`;

/** The CloudWatch dimension SES fills with the configuration set's name (an SES auto-tag). */
export const MAIL_METRIC_DIMENSION = 'ses:configuration-set';

/**
 * The value of the `ses-identity-created` parameter when the stack creates no identity
 * (`sesIdentityMode: import`). Identities are domains or addresses, never this word.
 */
export const NO_SES_IDENTITY_CREATED = 'none';

/** The ARN of an SES identity, from its name alone: no reference to the stack that creates it. */
export const sesIdentityArn = (scope: Construct, identity: string) =>
  Stack.of(scope).formatArn({ service: 'ses', resource: 'identity', resourceName: identity });

/** The ARN of the stage's configuration set, likewise from its name alone. */
export const mailConfigurationSetArn = (scope: Construct, stage: string) =>
  Stack.of(scope).formatArn({
    service: 'ses',
    resource: 'configuration-set',
    resourceName: mailConfigurationSetName(stage),
  });

/**
 * The service's sending side of SES: the configuration set (sends, deliveries, bounces,
 * complaints and rejects counted as CloudWatch metrics that the alarms read, and the set's own
 * reputation metrics), and the sender's identity when this stack creates it. For a domain
 * identity the DKIM records to publish are stack outputs.
 *
 * A verified identity is kept like the data (`identityRemovalPolicy`): switching to `import` or
 * to another `sesIdentity` leaves it, and its DKIM records, verified, instead of deleting it.
 * The stateful stack publishes the identity it created (`ses-identity-created`), so that
 * `npm run deploy` can tell its own identity from one that existed before (infra/deploy-preflight.ts).
 */
export class ServiceMail extends Construct {
  readonly configurationSet: ses.ConfigurationSet;

  constructor(scope: Construct, id: string, context: ServiceContext, identityRemovalPolicy: RemovalPolicy) {
    super(scope, id);
    this.configurationSet = new ses.ConfigurationSet(this, 'ConfigurationSet', {
      configurationSetName: mailConfigurationSetName(context.stage),
      reputationMetrics: true,
      sendingEnabled: true,
    });
    this.configurationSet.addEventDestination('Metrics', {
      destination: ses.EventDestination.cloudWatchDimensions([
        {
          name: MAIL_METRIC_DIMENSION,
          source: ses.CloudWatchDimensionSource.MESSAGE_TAG,
          defaultValue: mailConfigurationSetName(context.stage),
        },
      ]),
      events: [
        ses.EmailSendingEvent.SEND,
        ses.EmailSendingEvent.DELIVERY,
        ses.EmailSendingEvent.BOUNCE,
        ses.EmailSendingEvent.COMPLAINT,
        ses.EmailSendingEvent.REJECT,
      ],
    });

    // The identity is created here (verified by DNS, or by the link SES mails to the address),
    // or one verified already is used as it is ('import').
    if (context.sesIdentityMode !== 'create') return;
    const isAddress = context.sesIdentity.includes('@');
    const identity = new ses.EmailIdentity(this, 'SenderIdentity', {
      identity: isAddress
        ? ses.Identity.email(context.sesIdentity)
        : ses.Identity.domain(context.sesIdentity),
      configurationSet: this.configurationSet,
    });
    identity.applyRemovalPolicy(identityRemovalPolicy);
    if (isAddress) return;
    identity.dkimRecords.forEach((record, index) => {
      new CfnOutput(Stack.of(this), `DkimRecord${index + 1}`, {
        value: `${record.name} CNAME ${record.value}`,
        description: `DKIM record ${index + 1} of 3 to publish in the DNS of ${context.sesIdentity}`,
      });
    });
  }
}
