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
import { confirm, parseSubCommandLine, usageError } from '../../command-line.ts';
import { fail, speakOneLine } from './cli-failure.ts';
import { useLocalStack } from './running-stack.ts';

const COMMAND = {
  name: 'npm run oauth-client',
  usage: `
Usage: npm run oauth-client -- <create|list|revoke|block|unblock> [options]

Pre-registered OAuth clients (public, PKCE), for assistants that neither publish a client metadata
document nor register themselves, and the blocked client metadata document URLs. Talks to the
running local stack, or to AWS when TABLE_NAME (and AWS credentials) are set.

  create --name NAME --redirect-uri URI [--redirect-uri URI…] [--scope S]
                           register a client; prints it
  list                     the registered clients and the blocked URLs
  revoke CLIENT_ID [--yes] a registered client: refused from now on, its grants ended (asks first
                           on a terminal; --yes elsewhere)
  block URL                a client metadata document URL: refused from now on, its grants ended
  unblock URL              accept that URL again
  -h, --help               this text

Example:
  npm run oauth-client -- create --name "My assistant" --redirect-uri http://127.0.0.1:43117/callback
`,
};

speakOneLine();
const { subCommand, values, args } = parseSubCommandLine(
  COMMAND,
  {
    create: { summary: 'a client', options: ['name', 'redirect-uri', 'scope'] },
    list: { summary: 'clients and blocks' },
    revoke: { summary: 'end a client', options: ['yes'], args: ['CLIENT_ID'] },
    block: { summary: 'refuse a URL', args: ['URL'] },
    unblock: { summary: 'accept a URL again', args: ['URL'] },
  },
  {
    options: {
      name: { type: 'string' },
      'redirect-uri': { type: 'string', multiple: true },
      scope: { type: 'string' },
      yes: { type: 'boolean', short: 'y' },
    },
  },
);
if (subCommand === 'create' && (!values.name || !values['redirect-uri']?.length))
  usageError(COMMAND, 'create needs --name and at least one --redirect-uri');
useLocalStack();
const { createClient, listClients } = await import('#lib/oauth/clients.ts');
const { listClientBlocks } = await import('#lib/oauth/client-blocks.ts');
const { blockClient, revokeClientAccess, unblockClient } = await import('#lib/oauth/client-revocation.ts');
const { HttpError } = await import('#lib/http/errors.ts');

try {
  switch (subCommand) {
    case 'create': {
      const client = await createClient(
        {
          client_name: values.name as string,
          redirect_uris: values['redirect-uri'] ?? [],
          scope: values.scope,
        },
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
      const clientId = args[0] as string;
      await confirm(COMMAND, `revoke client ${clientId} and end its grants`, values.yes);
      console.log(JSON.stringify(await revokeClientAccess(clientId), null, 2));
      break;
    }
    case 'block': {
      const url = args[0] as string;
      console.log(JSON.stringify(await blockClient(url), null, 2));
      break;
    }
    case 'unblock': {
      const url = args[0] as string;
      console.log(JSON.stringify(await unblockClient(url), null, 2));
      break;
    }
  }
} catch (error) {
  // Refused input (a bad redirect URI, an unknown client) is one line, not a stack trace.
  if (error instanceof HttpError) fail(error.message);
  throw error;
}
