import { describe, expect, it, vi } from 'vitest';
import { accessKeys, decideAccess, holdsBusiness, isMember, readAccess } from '#lib/auth/business-access.ts';
import type { AssistantPrincipal, UserPrincipal } from '#lib/auth/principal.ts';
import { keys } from '#lib/db/keys.ts';

// The module reads the table name at load (its DynamoDB client); nothing here calls DynamoDB.
vi.hoisted(() => {
  process.env.TABLE_NAME ??= 'unit-test-table';
});

const user: UserPrincipal = {
  kind: 'user',
  userId: 'u1',
  issuer: 'https://issuer.example',
  subject: 's1',
  email: 'ada@example.com',
  emailVerified: true,
};
const assistant: AssistantPrincipal = {
  kind: 'assistant',
  userId: 'u1',
  clientId: 'c1',
  scopes: [],
  grantId: 'g1',
};
const business = { ...keys.business('b1') };
const member = (role: string) => ({ ...keys.member('b1', 'u1'), role });
const userRecord = { ...keys.user('u1') };
const admin = { ...keys.platformAdmin('ada@example.com'), kind: 'admin' };

describe('accessKeys', () => {
  it('reads the business, the membership, the user record and the admin entry of a verified user', () => {
    expect(accessKeys(user, 'b1')).toEqual([
      keys.business('b1'),
      keys.member('b1', 'u1'),
      keys.user('u1'),
      keys.platformAdmin('ada@example.com'),
    ]);
  });

  it('reads no admin entry for an unverified e-mail, and neither that nor a user record for an assistant', () => {
    expect(accessKeys({ ...user, emailVerified: false }, 'b1')).toHaveLength(3);
    expect(accessKeys(assistant, 'b1')).toEqual([keys.business('b1'), keys.member('b1', 'u1')]);
  });
});

describe('readAccess and decideAccess', () => {
  it('lets an editor hold the business, and ignores items read beside the access items', () => {
    const record = { ...keys.record('b1', 'faq', 'f1'), role: 'owner', kind: 'admin' };
    const read = readAccess(user, 'b1', [business, member('editor'), userRecord, record]);
    expect(read.unseenUser).toBeUndefined();
    expect(decideAccess(read, holdsBusiness)).toEqual({
      businessId: 'b1',
      role: 'editor',
      isPlatformAdmin: false,
    });
  });

  it('refuses a viewer a change (403) but lets them read', () => {
    const read = readAccess(user, 'b1', [business, member('viewer'), userRecord]);
    expect(() => decideAccess(read, holdsBusiness)).toThrow("Your role 'viewer' cannot change this business");
    expect(decideAccess(read, isMember).role).toBe('viewer');
  });

  it('refuses a non-member, and names a user seen for the first time', () => {
    const read = readAccess(user, 'b1', [business]);
    expect(read.unseenUser).toBe(user);
    expect(() => decideAccess(read, isMember)).toThrow('You are not a member of this business');
  });

  it('lets a platform admin in only where the business exists (404 otherwise)', () => {
    expect(decideAccess(readAccess(user, 'b1', [business, admin]), holdsBusiness).isPlatformAdmin).toBe(true);
    expect(() => decideAccess(readAccess(user, 'b1', [admin]), holdsBusiness)).toThrow(
      'Business b1 not found',
    );
  });

  it('never delegates a platform admin reach to an assistant', () => {
    const read = readAccess(assistant, 'b1', [business, admin]);
    expect(read.isPlatformAdmin).toBe(false);
    expect(read.unseenUser).toBeUndefined();
    expect(() => decideAccess(read, holdsBusiness)).toThrow('You are not a member of this business');
  });
});
