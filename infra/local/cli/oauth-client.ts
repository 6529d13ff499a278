/**
 * `npm run oauth-client -- <command>`: pre-register OAuth clients (public, PKCE) for assistants
 * that neither publish a client metadata document nor register themselves.
 *
 *   create --name NAME --redirect-uri URI [--redirect-uri URI…]   prints the client
 *   list
 *   revoke CLIENT_ID
 *
 * Talks to the running local stack, or to AWS when TABLE_NAME (and AWS credentials) are set.
 */
import { parseArgs } from 'node:util';
import { fail, speakOneLine, useLocalStack } from './local-stack.ts';

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
const { createClient, listClients, revokeClient } = await import('#lib/oauth/clients.ts');
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
    case 'list':
      console.log(JSON.stringify(await listClients(), null, 2));
      break;
    case 'revoke': {
      const clientId = positionals[1];
      if (!clientId) fail('revoke needs the client id');
      console.log(JSON.stringify(await revokeClient(clientId), null, 2));
      break;
    }
    default:
      fail('use: create --name N --redirect-uri URI [--redirect-uri URI…] | list | revoke CLIENT_ID');
  }
} catch (error) {
  // Refused input (a bad redirect URI, an unknown client) is one line, not a stack trace.
  if (error instanceof HttpError) fail(error.message);
  throw error;
}
