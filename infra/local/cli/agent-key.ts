/**
 * `npm run agent-key -- <command>`: manage agent API keys (stored as SHA-256 hashes only); USAGE
 * below. Talks to the running local stack, or to AWS when TABLE_NAME (and AWS credentials) are set.
 */
import { confirm, parseSubCommandLine, usageError } from '../../command-line.ts';
import { fail, speakOneLine } from './cli-failure.ts';
import { useLocalStack } from './running-stack.ts';

const COMMAND = {
  name: 'npm run agent-key',
  usage: `
Usage: npm run agent-key -- <create|list|revoke> [options]

Agent API keys, for programs that read and write a business's records (x-api-key). Only a key's
hash is kept: create prints the key once. Talks to the running local stack, or to AWS when
TABLE_NAME (and AWS credentials) are set.

  create --name NAME --businesses ID[,ID…]|* [--scopes read,write]
                     a key for these businesses (each must exist; * is every business); prints it
  list               every key, without the keys themselves
  revoke KEY_ID [--yes]
                     the key is refused from now on (asks first; --yes when not on a terminal)
  -h, --help         this text

Example:
  npm run agent-key -- create --name reporting --businesses '*' --scopes read   (quote the *)
`,
};

speakOneLine();
const { subCommand, values, args } = parseSubCommandLine(
  COMMAND,
  {
    create: { summary: 'a key', options: ['name', 'businesses', 'scopes'] },
    list: { summary: 'the keys' },
    revoke: { summary: 'end a key', options: ['yes'], args: ['KEY_ID'] },
  },
  {
    options: {
      name: { type: 'string' },
      businesses: { type: 'string' },
      scopes: { type: 'string', default: 'read,write' },
      yes: { type: 'boolean', short: 'y' },
    },
  },
);
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

switch (subCommand) {
  case 'create': {
    if (!values.name || !values.businesses)
      usageError(COMMAND, 'create needs --name and --businesses (ids, comma-separated, or *)');
    const businesses = values.businesses === '*' ? '*' : values.businesses.split(',').map((id) => id.trim());
    if (businesses !== '*' && !businesses.every((id) => UUID.test(id)))
      usageError(COMMAND, '--businesses must be UUIDs or *');
    const scopes = values.scopes.split(',').map((scope) => scope.trim());
    if (!scopes.every((scope) => scope === 'read' || scope === 'write'))
      usageError(COMMAND, '--scopes may hold read and write');
    useLocalStack();
    if (businesses !== '*') {
      const missing = await missingBusinesses(businesses);
      if (missing.length > 0)
        fail(`no business ${missing.join(', ')} (npm run business -- create makes one)`);
    }
    const { createAgentKey } = await import('#lib/auth/agent-keys.ts');
    const { key, record } = await createAgentKey({
      name: values.name,
      businesses,
      scopes: scopes as ('read' | 'write')[],
    });
    console.log(JSON.stringify({ ...record, key }, null, 2));
    console.error('Store the key now: only its hash is kept.');
    break;
  }
  case 'list': {
    useLocalStack();
    const { listAgentKeys } = await import('#lib/auth/agent-keys.ts');
    console.log(JSON.stringify(await listAgentKeys(), null, 2));
    break;
  }
  case 'revoke': {
    const keyId = args[0] ?? '';
    if (!UUID.test(keyId)) usageError(COMMAND, 'revoke needs the key id (a UUID)');
    useLocalStack();
    await confirm(COMMAND, `revoke agent key ${keyId}`, values.yes);
    const { revokeAgentKey } = await import('#lib/auth/revoke-agent-key.ts');
    console.log(JSON.stringify(await revokeAgentKey(keyId), null, 2));
    break;
  }
}

/** The ids, of those given, that name no business in the table. */
async function missingBusinesses(ids: string[]): Promise<string[]> {
  const { GetCommand } = await import('@aws-sdk/lib-dynamodb');
  const { dynamo, tableName } = await import('#lib/db/client.ts');
  const { keys } = await import('#lib/db/keys.ts');
  const found = await Promise.all(
    ids.map(async (id) => {
      const { Item } = await dynamo.send(
        new GetCommand({ TableName: tableName, Key: keys.business(id), ConsistentRead: true }),
      );
      return Item === undefined ? id : undefined;
    }),
  );
  return found.filter((id) => id !== undefined);
}
