/**
 * `npm run oauth-client -- <command>`: pre-register OAuth clients (public, PKCE) for assistants
 * that neither publish a client metadata document nor register themselves.
 *
 *   create --name NAME --redirect-uri URI [--redirect-uri URI…]   prints the client
 *   list                 the registered clients and the blocked URLs
 *   revoke CLIENT_ID     a registered client: refused from now on, its grants ended
 *   block URL            a client metadata document URL: refused from now on, its grants ended
 *   unblock URL
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
    'redirect-uri': { type: 'string', multiple: true },
    scope: { type: 'string' },
  },
  allowPositionals: true,
});
useLocalStack();
const { createClient, listClients } = await import('#lib/oauth/clients.ts');
const { listClientBlocks } = await import('#lib/oauth/client-blocks.ts');
const { blockClient, revokeClientAccess, unblockClient } = await import('#lib/oauth/client-revocation.ts');
const { HttpError } = await import('#lib/http/errors.ts');

try {
  switch (positionals[0]) {
    case 'create': {
      const redirectUris = values['redirect-uri'] ?? [];
      if (!values.name || redirectUris.length === 0)
        fail('create needs --name and at least one --redirect-uri');
      const client = await createClient(
        { client_name: values.name, redirect_uris: redirectUris, scope: values.scope },
        'cli',
      );
      console.log(JSON.stringify(client, null, 2));
      break;
    }
    case 'list': {
      const [clients, blocked] = await Promise.all([listClients(), listClientBlocks()]);
      console.log(JSON.stringify({ clients, blocked }, null, 2));
      break;
    }
    case 'revoke': {
      const clientId = positionals[1];
      if (!clientId) fail('revoke needs the client id');
      console.log(JSON.stringify(await revokeClientAccess(clientId), null, 2));
      break;
    }
    case 'block': {
      const url = positionals[1];
      if (!url) fail('block needs the client metadata document URL');
      console.log(JSON.stringify(await blockClient(url), null, 2));
      break;
    }
    case 'unblock': {
      const url = positionals[1];
      if (!url) fail('unblock needs the client metadata document URL');
      console.log(JSON.stringify(await unblockClient(url), null, 2));
      break;
    }
    default:
      fail(
        'use: create --name N --redirect-uri URI [--redirect-uri URI…] | list | revoke CLIENT_ID | block URL | unblock URL',
      );
  }
} catch (error) {
  // Refused input (a bad redirect URI, an unknown client) is one line, not a stack trace.
  if (error instanceof HttpError) fail(error.message);
  throw error;
}
