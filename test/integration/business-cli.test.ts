import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { assertInvitedToSignUp } from '#lib/auth/sign-up-admission.ts';
import { ROOT_DIR } from '../../infra/local/paths.ts';
import { api } from '../support/api.ts';
import { issuer } from '../support/tokens.ts';

const run = promisify(execFile);

/** `npm run business -- …` against the test harness, as the CLIs run against a stack. */
async function business(args: string[]) {
  return run(process.execPath, ['--import', 'tsx', 'infra/local/cli/business.ts', ...args], {
    cwd: ROOT_DIR,
    env: { ...process.env, TABLE_NAME: '', LOCAL_STATE_DIR: inject('harness').stateDir },
    timeout: 60_000,
  });
}

/**
 * The same, as against a deployed table: TABLE_NAME set (here the harness's table), and JWT_ISSUER
 * a Cognito user pool's, whose subjects the CLI cannot derive from an e-mail address.
 */
async function businessInAws(args: string[]) {
  return run(process.execPath, ['--import', 'tsx', 'infra/local/cli/business.ts', ...args], {
    cwd: ROOT_DIR,
    env: { ...process.env, JWT_ISSUER: 'https://cognito-idp.eu-west-1.amazonaws.com/eu-west-1_CliTest' },
    timeout: 60_000,
  });
}

describe('npm run business', () => {
  it('creates a business, adds a member who can then use it, and removes them again', {
    timeout: 180_000,
  }, async () => {
    const email = `owner-${randomUUID().slice(0, 8)}@cli.example`;
    const token = await (await issuer()).mintToken({ email });
    const created = JSON.parse((await business(['create', '--name', 'Corner Shop'])).stdout);
    const path = `/api/v1/edits/businesses/${created.id}`;

    expect(created).toMatchObject({ name: 'Corner Shop', id: expect.any(String) });
    expect((await api('GET', path, { token })).status).toBe(403);

    const added = JSON.parse(
      (await business(['add-member', '--business', created.id, '--role', 'owner', '--email', email])).stdout,
    );
    expect(added).toMatchObject({ business_id: created.id, role: 'owner' });
    const read = await api('GET', path, { token });
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({ name: 'Corner Shop', role: 'owner' });

    await business(['remove-member', '--business', created.id, '--email', email]);
    expect((await api('GET', path, { token })).status).toBe(403);
  });

  it('refuses a member of a business that does not exist, and bad arguments, with one line', {
    timeout: 180_000,
  }, async () => {
    const missing = randomUUID();
    await expect(
      business(['add-member', '--business', missing, '--role', 'owner', '--email', 'a@cli.example']),
    ).rejects.toMatchObject({ stderr: expect.stringContaining(`no business ${missing}`) });
    await expect(
      business(['add-member', '--business', missing, '--role', 'boss', '--email', 'a@cli.example']),
    ).rejects.toMatchObject({ stderr: expect.stringContaining('--role') });
    await expect(
      business(['remove-member', '--business', missing, '--email', 'a@cli.example']),
    ).rejects.toMatchObject({
      stderr: expect.stringContaining('not a member'),
    });
  });

  it('against a deployed table, --email invites someone without an account: a pending membership that lets them sign up', {
    timeout: 180_000,
  }, async () => {
    const email = `invitee-${randomUUID().slice(0, 8)}@cli.example`;
    const created = JSON.parse((await business(['create', '--name', 'Pending Shop'])).stdout);

    const added = JSON.parse(
      (
        await businessInAws([
          'add-member',
          '--business',
          created.id,
          '--role',
          'editor',
          '--email',
          email.toUpperCase(),
        ])
      ).stdout,
    );

    expect(added).toMatchObject({ business_id: created.id, email, role: 'editor', status: 'pending' });
    await expect(assertInvitedToSignUp(email, undefined)).resolves.toBeUndefined();

    const removed = JSON.parse(
      (await businessInAws(['remove-member', '--business', created.id, '--email', email])).stdout,
    );
    expect(removed).toMatchObject({ business_id: created.id, email, removed: true });
    await expect(assertInvitedToSignUp(email, undefined)).rejects.toThrow('by invitation only');
    await expect(
      businessInAws(['remove-member', '--business', created.id, '--email', email]),
    ).rejects.toMatchObject({ stderr: expect.stringContaining('has no pending membership') });
    await expect(
      businessInAws(['add-member', '--business', randomUUID(), '--role', 'owner', '--email', email]),
    ).rejects.toMatchObject({ stderr: expect.stringContaining('No business') });
  });
});
