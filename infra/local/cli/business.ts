/**
 * `npm run business -- <command>`: provision businesses and their members (no endpoint of the
 * interface creates them; DESIGN §7).
 *
 *   create --name NAME [--id UUID]                                  prints the business
 *   add-member --business ID --role owner|editor|viewer (--email E | --sub SUB)
 *   remove-member --business ID (--email E | --sub SUB)
 *
 * A member is named by the identity provider's subject: locally `--email` is enough (the dev
 * issuer's subject is derived from it); against a deployed table give `--sub` (the Cognito user's
 * `sub`) with JWT_ISSUER set to the stack's ConsoleIssuer output. Talks to the running local
 * stack, or to AWS when TABLE_NAME (and AWS credentials) are set.
 */
import { parseArgs } from 'node:util';
import { LOCAL_ISSUER, localSubject } from '../dev-issuer.ts';
import { fail, speakOneLine, useLocalStack } from './local-stack.ts';

speakOneLine();
const { values, positionals } = parseArgs({
  options: {
    name: { type: 'string' },
    id: { type: 'string' },
    business: { type: 'string' },
    role: { type: 'string' },
    email: { type: 'string' },
    sub: { type: 'string' },
  },
  allowPositionals: true,
});
useLocalStack();
const { createBusiness, putMember, removeMember } = await import('#lib/businesses/business-store.ts');
const { userIdFor } = await import('#lib/auth/user-id.ts');
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const ROLES = ['owner', 'editor', 'viewer'] as const;

/** The member's user id, as the service derives it from the token's issuer and subject. */
function memberUserId(): { userId: string; subject: string } {
  const issuer = process.env.JWT_ISSUER;
  if (!issuer) fail("set JWT_ISSUER to the stack's ConsoleIssuer output (the user pool URL)");
  let subject = values.sub;
  if (!subject && values.email) {
    if (issuer !== LOCAL_ISSUER)
      fail("against a deployed table, name the user with --sub (the Cognito user's sub)");
    subject = localSubject(values.email);
  }
  if (!subject) fail('name the member with --email E (local) or --sub SUB');
  return { userId: userIdFor(issuer, subject), subject };
}

function businessId(): string {
  if (!values.business || !UUID.test(values.business)) fail('--business must be the business id (a UUID)');
  return values.business;
}

switch (positionals[0]) {
  case 'create': {
    if (!values.name?.trim()) fail('create needs --name');
    if (values.id && !UUID.test(values.id)) fail('--id must be a UUID');
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
    const { userId, subject } = memberUserId();
    try {
      await putMember(id, userId, role);
    } catch (error) {
      if ((error as Error).name === 'TransactionCanceledException') fail(`no business ${id}`);
      throw error;
    }
    console.log(JSON.stringify({ business_id: id, user_id: userId, subject, role }, null, 2));
    break;
  }
  case 'remove-member': {
    const id = businessId();
    const { userId } = memberUserId();
    if (!(await removeMember(id, userId))) fail(`user ${userId} is not a member of ${id}`);
    console.log(JSON.stringify({ business_id: id, user_id: userId, removed: true }, null, 2));
    break;
  }
  default:
    fail(
      'use: create --name N [--id UUID] | add-member --business ID --role R (--email E | --sub S) | remove-member --business ID (--email E | --sub S)',
    );
}
