/**
 * `npm run admin -- create --email someone@example.com [--first-name A] [--last-name B]`:
 * make an active platform admin (the first one cannot come from an endpoint). Also `list`.
 * Talks to the running local stack, or to AWS when TABLE_NAME (and AWS credentials) are set.
 */
import { parseArgs } from 'node:util';
import { fail, speakOneLine, useLocalStack } from './local-stack.ts';

speakOneLine();
const { values, positionals } = parseArgs({
  options: { email: { type: 'string' }, 'first-name': { type: 'string' }, 'last-name': { type: 'string' } },
  allowPositionals: true,
});
useLocalStack();
const { ensurePlatformAdmin, listPlatformAdminEntries } = await import('#lib/admins/platform-admin-store.ts');

switch (positionals[0]) {
  case 'create': {
    if (!values.email || !/^[^@\s]+@[^@\s]+\.[^@\s]+$/.test(values.email))
      fail('create needs --email someone@example.com');
    const { created, entry } = await ensurePlatformAdmin({
      email: values.email,
      ...(values['first-name'] ? { firstName: values['first-name'] } : {}),
      ...(values['last-name'] ? { lastName: values['last-name'] } : {}),
    });
    if (!created) fail(`${entry.email} already has an entry (${entry.kind}, ${entry.status})`);
    console.log(JSON.stringify(entry, null, 2));
    break;
  }
  case 'list':
    console.log(JSON.stringify(await listPlatformAdminEntries(), null, 2));
    break;
  default:
    fail('use: create --email E [--first-name F] [--last-name L] | list');
}
