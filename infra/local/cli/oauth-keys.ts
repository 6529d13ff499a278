/**
 * `npm run oauth-keys -- <command>`: the keys that sign assistants' access tokens.
 *
 *   list     the published keys and their schedule (published, signs from, retires at)
 *   rotate   publish a new key now; it signs from 10 minutes on, and the key it replaces stays
 *            published until every token that key signed has expired. One run; nothing to finish.
 *
 * Talks to the running local stack (the key file in .local/), or to AWS when TABLE_NAME and
 * OAUTH_SIGNING_KEY_SECRET_ID (and AWS credentials) are set.
 */
import { confirm, parseSubCommandLine } from '../../command-line.ts';
import { fail, speakOneLine } from './cli-failure.ts';
import { useLocalStack } from './running-stack.ts';

const COMMAND = {
  name: 'npm run oauth-keys',
  usage: `
Usage: npm run oauth-keys -- <list|rotate> [--yes]

The keys that sign assistants' access tokens. Talks to the running local stack (the key file in
.local/), or to AWS when TABLE_NAME and OAUTH_SIGNING_KEY_SECRET_ID (and AWS credentials) are set.

  list           the published keys and their schedule (published, signs from, retires at)
  rotate [--yes] publish a new key now; it signs from 10 minutes on, and the key it replaces stays
                 published until every token it signed has expired. Asks first on a terminal;
                 --yes elsewhere
  -h, --help     this text

Example:
  npm run oauth-keys -- list
`,
};

speakOneLine();
const { subCommand, values } = parseSubCommandLine(
  COMMAND,
  { list: { summary: 'the keys' }, rotate: { summary: 'a new key', options: ['yes'] } },
  { options: { yes: { type: 'boolean', short: 'y' } } },
);
useLocalStack();
if (process.env.TABLE_NAME && !process.env.OAUTH_SIGNING_KEY_SECRET_ID && !process.env.OAUTH_SIGNING_KEY_FILE)
  fail(
    'set OAUTH_SIGNING_KEY_SECRET_ID to the OAuthSigningKey secret (its ARN, or name) as well as TABLE_NAME',
  );
const { readPublishedKeys } = await import('#lib/oauth/published-keys.ts');
const { rotateSigningKey, RotationRefusedError } = await import('#lib/oauth/key-rotation.ts');

const schedule = async () =>
  ((await readPublishedKeys())?.keys ?? []).map((key) => ({
    kid: key.jwk.kid,
    published_at: key.published_at,
    signs_from: key.signs_from,
    retires_at: key.retires_at ?? null,
  }));

try {
  switch (subCommand) {
    case 'list':
      console.log(JSON.stringify(await schedule(), null, 2));
      break;
    case 'rotate': {
      await confirm(COMMAND, 'publish a new signing key (the current one retires)', values.yes);
      const rotation = await rotateSigningKey();
      console.log(`Published key ${rotation.kid}; it signs from ${rotation.signsFrom}.`);
      console.log(JSON.stringify(await schedule(), null, 2));
      break;
    }
  }
} catch (error) {
  if (error instanceof RotationRefusedError) fail(error.message);
  throw error;
}
