import { createHash } from 'node:crypto';
import { tableDefinition } from '#lib/db/table.ts';
import { LOCAL_AWS, LOCAL_PHOTOS_BUCKET, LOCAL_TABLE_NAME } from '../local-names.ts';
import { type CallScope, type LocalAccount, regionalArn } from './iam-request.ts';
import { TemplateResolver, type TemplateSet } from './template-resolver.ts';

/**
 * The account and region the local stack stands for. A synthesized template's pseudo parameters
 * (`AWS::AccountId`, `AWS::Region`, `AWS::Partition`) resolve to these, and every call's ARN is
 * built in them, so a policy's ARNs and a call's ARNs meet. The region is the one the functions'
 * SDK clients are given locally; the account is the one DynamoDB Local and LocalStack use.
 */
export const LOCAL_ACCOUNT: LocalAccount = {
  partition: 'aws',
  accountId: '000000000000',
  region: LOCAL_AWS.region,
};

/**
 * A secret's ARN from its name. Secrets Manager ends every secret's ARN with a dash and six random
 * characters (which is why policies write `name-??????`); locally they are derived from the name,
 * so the template's secret and a call naming it agree.
 */
export function localSecretArn(account: LocalAccount, name: string): string {
  const suffix = createHash('sha256').update(name).digest('base64url').replace(/[-_]/g, 'x').slice(0, 6);
  return regionalArn(account, 'secretsmanager', `secret:${name}-${suffix}`);
}

/** The partition key of the table or of one of its indexes, from the shape stack and emulator share. */
function tablePartitionKey(_table: string, index?: string): string | undefined {
  if (index === undefined) return tableDefinition.partitionKey;
  return tableDefinition.globalSecondaryIndexes.find((gsi) => gsi.indexName === index)?.partitionKey;
}

/** The call scope of the local stack: its account, its table's keys, its SES identities. */
export function localCallScope(options: {
  account?: LocalAccount;
  sesIdentities: readonly string[];
}): CallScope {
  const account = options.account ?? LOCAL_ACCOUNT;
  return {
    account,
    partitionKeyOf: tablePartitionKey,
    secretArn: (secretId) => (secretId.startsWith('arn:') ? secretId : localSecretArn(account, secretId)),
    sesIdentities: options.sesIdentities,
  };
}

/** The templates read as deployed into the local account, the table and bucket under the emulators' names. */
export const localTemplateResolver = (templates: TemplateSet): TemplateResolver =>
  new TemplateResolver(templates, LOCAL_ACCOUNT, { Table: LOCAL_TABLE_NAME, Photos: LOCAL_PHOTOS_BUCKET });
