/**
 * `npm run admin -- bootstrap --email someone@example.com [--first-name A] [--last-name B]`:
 * make the first active platform admin of a deployment (refused once one exists; the first one
 * cannot come from an endpoint). In AWS the person then signs up with that address at the managed
 * login: an active admin's address is admitted. `create` makes an active admin whatever exists
 * already; `list` shows admins and invites.
 * Talks to the running local stack, or to AWS when TABLE_NAME (and AWS credentials) are set.
 */
import { parseArgs } from 'node:util';
import { normaliseEmail } from '#lib/db/keys.ts';
import { emailAddress } from '#lib/validation/formats.ts';
import * as z from '#lib/validation/zod.ts';
import { fail, speakOneLine } from './cli-failure.ts';
import { useLocalStack } from './running-stack.ts';

speakOneLine();
const { values, positionals } = parseArgs({
  options: { email: { type: 'string' }, 'first-name': { type: 'string' }, 'last-name': { type: 'string' } },
  allowPositionals: true,
});
useLocalStack();
const { bootstrapPlatformAdmin, ensurePlatformAdmin } = await import('#lib/admins/admin-provisioning.ts');
const { listPlatformAdminEntries } = await import('#lib/admins/platform-admin-reads.ts');

/** The new admin's e-mail and names, from the flags. */
function newAdmin(command: string) {
  // The format sign-up admits (lib/auth/sign-up-admission.ts), so the admin can make an account.
  if (!values.email || !z.safeParse(emailAddress(), normaliseEmail(values.email)).success)
    fail(`${command} needs --email someone@example.com`);
  return {
    email: values.email,
    ...(values['first-name'] ? { firstName: values['first-name'] } : {}),
    ...(values['last-name'] ? { lastName: values['last-name'] } : {}),
  };
}

switch (positionals[0]) {
  case 'bootstrap':
    console.log(JSON.stringify(await bootstrapPlatformAdmin(newAdmin('bootstrap')), null, 2));
    break;
  case 'create': {
    const { created, entry } = await ensurePlatformAdmin(newAdmin('create'));
    if (!created) fail(`${entry.email} already has an entry (${entry.kind}, ${entry.status})`);
    console.log(JSON.stringify(entry, null, 2));
    break;
  }
  case 'list':
    console.log(JSON.stringify(await listPlatformAdminEntries(), null, 2));
    break;
  default:
    fail(
      'use: bootstrap --email E [--first-name F] [--last-name L] | create --email E [--first-name F] [--last-name L] | list',
    );
}
