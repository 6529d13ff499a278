/**
 * `npm run business -- <command>`: provision businesses and their members (no endpoint of the
 * interface creates them).
 *
 *   create --name NAME [--id UUID]                                  prints the business
 *   add-member --business ID --role owner|editor|viewer (--email E | --sub SUB)
 *   remove-member --business ID (--email E | --sub SUB)
 *
 * A member is named by the identity provider's subject: `--sub` (the Cognito user's `sub`) with
 * JWT_ISSUER set to the stack's ConsoleIssuer output. Locally `--email` is enough (the dev
 * issuer's subject is derived from it). Against a deployed table `--email` invites someone who has
 * no account yet: the membership is pending, which lets them sign up with that address, and the
 * user pool's Post Confirmation trigger makes it theirs once they confirm it. (With another
 * identity provider, context `issuer`, nothing claims it: use `--sub`.) Talks to the running local
 * stack, or to AWS when TABLE_NAME (and AWS credentials) are set.
 */
import { normaliseEmail } from '#lib/db/keys.ts';
import { emailAddress } from '#lib/validation/formats.ts';
import * as z from '#lib/validation/zod.ts';
import { parseSubCommandLine, usageError } from '../../command-line.ts';
import { LOCAL_ISSUER, localSubject } from '../dev-issuer.ts';
import { fail, speakOneLine } from './cli-failure.ts';
import { useLocalStack } from './running-stack.ts';

const COMMAND = {
  name: 'npm run business',
  usage: `
Usage: npm run business -- <create|add-member|remove-member> [options]

Provisions businesses and their members (no endpoint creates them). Talks to the running local
stack, or to AWS when TABLE_NAME (and AWS credentials) are set.

  create --name NAME [--id UUID]                 a business (with its profile); prints it
  add-member --business ID --role owner|editor|viewer (--email E | --sub SUB)
                                                 give someone a role (replacing the one they had)
  remove-member --business ID (--email E | --sub SUB)
  -h, --help                                     this text

A member is named by the identity provider's subject: --sub (the Cognito user's sub) with
JWT_ISSUER set to the stack's ConsoleIssuer output. Locally --email is enough. Against a deployed
table --email invites someone who has no account yet (a pending membership).

Example:
  npm run business -- create --name "Harbor Bakery"
  npm run business -- add-member --business <its id> --role editor --email sam@example.com
`,
};

const UUID_FORMAT = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

speakOneLine();
const { subCommand, values } = parseSubCommandLine(
  COMMAND,
  {
    create: { summary: 'a business', options: ['name', 'id'] },
    'add-member': { summary: 'a member', options: ['business', 'role', 'email', 'sub'] },
    'remove-member': { summary: 'end a membership', options: ['business', 'email', 'sub'] },
  },
  {
    options: {
      name: { type: 'string' },
      id: { type: 'string' },
      business: { type: 'string' },
      role: { type: 'string' },
      email: { type: 'string' },
      sub: { type: 'string' },
    },
  },
);
// The arguments first (a usage mistake exits 2 whether a stack runs or not), then the stack.
if (subCommand === 'create') {
  if (!values.name?.trim()) usageError(COMMAND, 'create needs --name');
  if (values.id && !UUID_FORMAT.test(values.id)) usageError(COMMAND, '--id must be a UUID');
} else {
  if (!values.business || !UUID_FORMAT.test(values.business))
    usageError(COMMAND, '--business must be the business id (a UUID)');
  if (subCommand === 'add-member' && !['owner', 'editor', 'viewer'].includes(values.role ?? ''))
    usageError(COMMAND, '--role must be owner, editor or viewer');
  if (!values.email && !values.sub) usageError(COMMAND, 'name the member with --email E or --sub SUB');
}
useLocalStack();
const { createBusiness, putMember, removeMember } = await import('#lib/businesses/business-store.ts');
const { putPendingMember, removePendingMember } = await import('#lib/businesses/pending-members.ts');
const { userIdFor } = await import('#lib/auth/user-id.ts');
const ROLES = ['owner', 'editor', 'viewer'] as const;

/**
 * Who the member is: a user id, as the service derives it from the token's issuer and subject;
 * or, against a deployed table, an e-mail address whose person has no account (no subject) yet.
 */
function member(): { userId: string; subject: string } | { email: string } {
  const issuer = process.env.JWT_ISSUER;
  if (values.sub) {
    if (!issuer) fail("set JWT_ISSUER to the stack's ConsoleIssuer output (the user pool URL)");
    return { userId: userIdFor(issuer, values.sub), subject: values.sub };
  }
  if (values.email) {
    const email = normaliseEmail(values.email);
    if (!z.safeParse(emailAddress(), email).success) usageError(COMMAND, '--email must be an e-mail address');
    if (issuer !== LOCAL_ISSUER) return { email };
    const subject = localSubject(email);
    return { userId: userIdFor(issuer, subject), subject };
  }
  return fail('name the member with --email E or --sub SUB');
}

function businessId(): string {
  if (!values.business || !UUID_FORMAT.test(values.business))
    fail('--business must be the business id (a UUID)');
  return values.business;
}

switch (subCommand) {
  case 'create': {
    if (!values.name?.trim()) fail('create needs --name');
    if (values.id && !UUID_FORMAT.test(values.id)) fail('--id must be a UUID');
    const business = await createBusiness({
      name: values.name.trim(),
      ...(values.id ? { id: values.id } : {}),
    });
    console.log(JSON.stringify(business, null, 2));
    break;
  }
  case 'add-member': {
    const id = businessId();
    const role = values.role as (typeof ROLES)[number];
    if (!ROLES.includes(role)) fail('--role must be owner, editor or viewer');
    const who = member();
    if ('email' in who) {
      const pending = await putPendingMember(id, who.email, role);
      console.log(JSON.stringify({ ...pending, status: 'pending' }, null, 2));
      break;
    }
    try {
      await putMember(id, who.userId, role);
    } catch (error) {
      if ((error as Error).name === 'TransactionCanceledException') fail(`no business ${id}`);
      throw error;
    }
    console.log(
      JSON.stringify({ business_id: id, user_id: who.userId, subject: who.subject, role }, null, 2),
    );
    break;
  }
  case 'remove-member': {
    const id = businessId();
    const who = member();
    if ('email' in who) {
      if (!(await removePendingMember(id, who.email)))
        fail(`${who.email} has no pending membership of ${id} (name a member who has an account with --sub)`);
      console.log(JSON.stringify({ business_id: id, email: who.email, removed: true }, null, 2));
      break;
    }
    if (!(await removeMember(id, who.userId))) fail(`user ${who.userId} is not a member of ${id}`);
    console.log(JSON.stringify({ business_id: id, user_id: who.userId, removed: true }, null, 2));
    break;
  }
}
