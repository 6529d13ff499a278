/**
 * `npm run admin -- <command>`: the operator's people commands (USAGE below). `bootstrap` makes the
 * first active platform admin of a deployment (refused once one exists; the first one cannot come
 * from an endpoint); in AWS the person then signs up with that address at the managed login, since
 * an active admin's address is admitted. `create` makes an active admin whatever exists already;
 * `list` shows admins and invites. `end-grants` ends every assistant grant of a person, for when
 * their account is disabled or deleted.
 * Talks to the running local stack, or to AWS when TABLE_NAME (and AWS credentials) are set.
 * `--help` prints the usage and does nothing else; a usage mistake exits 2, a refusal 1 (see
 * infra/command-line.ts).
 */
import { normaliseEmail } from '#lib/db/keys.ts';
import { emailAddress } from '#lib/validation/formats.ts';
import * as z from '#lib/validation/zod.ts';
import { confirm, parseSubCommandLine, usageError } from '../../command-line.ts';
import { LOCAL_ISSUER, localUserId } from '../dev-issuer.ts';
import { fail, speakOneLine } from './cli-failure.ts';
import { useLocalStack } from './running-stack.ts';

const COMMAND = {
  name: 'npm run admin',
  usage: `
Usage: npm run admin -- <bootstrap|create|list|end-grants> [options]

The operator's people commands. Talks to the running local stack, or to AWS when TABLE_NAME (and
AWS credentials) are set.

  bootstrap --email E [--first-name F] [--last-name L]   the first active platform admin of a table
  create --email E [--first-name F] [--last-name L]      an active platform admin, whatever exists
  list                                                   platform admins and invites
  end-grants --email E [--yes]                           end every assistant grant of the person with
                                                         this address (their account was disabled or
                                                         deleted); prints what it ended. Asks first
                                                         on a terminal; --yes elsewhere
  -h, --help                                             this text

Example:
  npm run admin -- create --email ops@example.com --first-name Ada
`,
};

speakOneLine();
const names = ['email', 'first-name', 'last-name'];
const { subCommand: command, values } = parseSubCommandLine(
  COMMAND,
  {
    bootstrap: { summary: 'the first admin', options: names },
    create: { summary: 'an admin', options: names },
    list: { summary: 'admins and invites' },
    'end-grants': { summary: "end a person's grants", options: ['email', 'yes'] },
  },
  {
    options: {
      email: { type: 'string' },
      'first-name': { type: 'string' },
      'last-name': { type: 'string' },
      yes: { type: 'boolean', short: 'y' },
    },
  },
);

/** The --email the command needs, in the format sign-up admits (lib/auth/sign-up-admission.ts). */
function emailFlag(): string {
  if (!values.email || !z.safeParse(emailAddress(), normaliseEmail(values.email)).success)
    usageError(COMMAND, `${command} needs --email someone@example.com`);
  return values.email;
}

/** The new admin's e-mail and names, from the flags. */
function newAdmin() {
  return {
    email: emailFlag(),
    ...(values['first-name'] ? { firstName: values['first-name'] } : {}),
    ...(values['last-name'] ? { lastName: values['last-name'] } : {}),
  };
}

const email = command === 'list' ? undefined : emailFlag();
useLocalStack();
if (command === 'end-grants') await confirm(COMMAND, `end every assistant grant of ${email}`, values.yes);
switch (command) {
  case 'bootstrap': {
    const { bootstrapPlatformAdmin } = await import('#lib/admins/admin-provisioning.ts');
    console.log(JSON.stringify(await bootstrapPlatformAdmin(newAdmin()), null, 2));
    break;
  }
  case 'create': {
    const { ensurePlatformAdmin } = await import('#lib/admins/admin-provisioning.ts');
    const { created, entry } = await ensurePlatformAdmin(newAdmin());
    if (!created) fail(`${entry.email} already has an entry (${entry.kind}, ${entry.status})`);
    console.log(JSON.stringify(entry, null, 2));
    break;
  }
  case 'list': {
    const { listPlatformAdminEntries } = await import('#lib/admins/platform-admin-reads.ts');
    console.log(JSON.stringify(await listPlatformAdminEntries(), null, 2));
    break;
  }
  case 'end-grants': {
    const { endGrantsOfEmail } = await import('#lib/oauth/user-grants-end.ts');
    // Locally the dev issuer's user id follows from the address: grants approved before approvals
    // recorded the address are found too.
    const local = process.env.JWT_ISSUER === LOCAL_ISSUER ? [localUserId(email as string)] : [];
    const { setTimeout: sleep } = await import('node:timers/promises');
    const result = await endGrantsOfEmail(email as string, {
      alsoUserIds: local,
      wait: (ms) => {
        console.error(`waiting ${Math.ceil(ms / 1000)} s: an approval was not yet exchanged for a grant`);
        return sleep(ms);
      },
    });
    console.log(JSON.stringify(result, null, 2));
    break;
  }
}
