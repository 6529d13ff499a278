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
import { parseArgs } from 'node:util';
import { fail, speakOneLine } from './cli-failure.ts';
import { useLocalStack } from './running-stack.ts';

speakOneLine();
const { positionals } = parseArgs({ options: {}, allowPositionals: true });
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
  switch (positionals[0]) {
    case 'list':
      console.log(JSON.stringify(await schedule(), null, 2));
      break;
    case 'rotate': {
      const rotation = await rotateSigningKey();
      console.log(`Published key ${rotation.kid}; it signs from ${rotation.signsFrom}.`);
      console.log(JSON.stringify(await schedule(), null, 2));
      break;
    }
    default:
      fail('use: list | rotate');
  }
} catch (error) {
  if (error instanceof RotationRefusedError) fail(error.message);
  throw error;
}
