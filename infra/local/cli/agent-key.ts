/**
 * `npm run agent-key -- <command>`: manage agent API keys (stored as SHA-256 hashes only).
 *
 *   create --name NAME --businesses ID[,ID…]|* [--scopes read,write]   prints the key once
 *   list
 *   revoke KEY_ID
 *
 * Talks to the running local stack, or to AWS when TABLE_NAME (and AWS credentials) are set.
 */
import { parseArgs } from 'node:util';
import { fail, speakOneLine } from './cli-failure.ts';
import { useLocalStack } from './running-stack.ts';

speakOneLine();
const { values, positionals } = parseArgs({
  options: {
    name: { type: 'string' },
    businesses: { type: 'string' },
    scopes: { type: 'string', default: 'read,write' },
  },
  allowPositionals: true,
});
useLocalStack();
const { createAgentKey, listAgentKeys, revokeAgentKey } = await import('#lib/auth/agent-keys.ts');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

switch (positionals[0]) {
  case 'create': {
    if (!values.name || !values.businesses)
      fail('create needs --name and --businesses (ids, comma-separated, or *)');
    const businesses = values.businesses === '*' ? '*' : values.businesses.split(',').map((id) => id.trim());
    if (businesses !== '*' && !businesses.every((id) => UUID.test(id)))
      fail('--businesses must be UUIDs or *');
    const scopes = values.scopes.split(',').map((scope) => scope.trim());
    if (!scopes.every((scope) => scope === 'read' || scope === 'write'))
      fail('--scopes may hold read and write');
    const { key, record } = await createAgentKey({
      name: values.name,
      businesses,
      scopes: scopes as ('read' | 'write')[],
    });
    console.log(JSON.stringify({ ...record, key }, null, 2));
    console.error('Store the key now: only its hash is kept.');
    break;
  }
  case 'list':
    console.log(JSON.stringify(await listAgentKeys(), null, 2));
    break;
  case 'revoke': {
    const keyId = positionals[1];
    if (!keyId || !UUID.test(keyId)) fail('revoke needs the key id (a UUID)');
    console.log(JSON.stringify(await revokeAgentKey(keyId), null, 2));
    break;
  }
  default:
    fail('use: create --name N --businesses ID,…|* [--scopes read,write] | list | revoke KEY_ID');
}
