import { afterEach, describe, expect, it, vi } from 'vitest';

/** lib/auth/account-status.ts as a cold start with this CONSOLE_USER_POOL_ID (or none) loads it. */
async function loadWithPool(poolId: string | undefined) {
  if (poolId === undefined) delete process.env.CONSOLE_USER_POOL_ID;
  else process.env.CONSOLE_USER_POOL_ID = poolId;
  vi.resetModules();
  return import('#lib/auth/account-status.ts');
}

afterEach(() => {
  delete process.env.CONSOLE_USER_POOL_ID;
});

describe('the account directory’s configuration', () => {
  it('fails the cold start on a pool id that is not one, rather than a refresh later', async () => {
    for (const malformed of ['my-pool', 'eu-west-1_', 'eu west-1_abc', 'eu-west-1_abc/def']) {
      await expect(loadWithPool(malformed), malformed).rejects.toThrow(
        /CONSOLE_USER_POOL_ID must be a user pool id/,
      );
    }
  });

  it('asks nothing without a pool (another issuer, the local harness): every account is unchecked', async () => {
    const accounts = await loadWithPool(undefined);

    await expect(accounts.accountStatus('a-sub')).resolves.toBe('unchecked');
    expect(() => accounts.accountDirectory()).toThrow(/not set/);
  });

  it('asks nothing about a grant with no recorded account, even with a pool', async () => {
    const accounts = await loadWithPool('eu-west-1_AbC123');

    await expect(accounts.accountStatus(undefined)).resolves.toBe('unchecked');
  });
});
