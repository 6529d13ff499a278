import { describe, expect, it } from 'vitest';
import { readAlongsideAccess } from '#lib/auth/alongside-access.ts';

// Among the integration tests: readAlongsideAccess makes an item reader, whose module builds the
// DynamoDB client from the harness's environment (nothing here sends a call).
describe('readAlongsideAccess', () => {
  it('gives the check and the read one reader, so that their items go out in one call', async () => {
    const seen: unknown[] = [];
    await readAlongsideAccess(
      async (reads) => seen.push(reads),
      async (reads) => seen.push(reads),
    );

    expect(seen).toHaveLength(2);
    expect(seen[0]).toBe(seen[1]);
  });

  it('starts the read before the check has answered, and returns both', async () => {
    let answerCheck: (value: string) => void = () => {};
    const check = new Promise<string>((resolve) => {
      answerCheck = resolve;
    });
    let readStarted = false;
    const both = readAlongsideAccess(
      () => check,
      async () => {
        readStarted = true;
        return 42;
      },
    );

    expect(readStarted).toBe(true);
    answerCheck('member');
    await expect(both).resolves.toEqual({ access: 'member', result: 42 });
  });

  it("answers with the refused check, not the read's result or error", async () => {
    const refused = new Error('403');
    await expect(
      readAlongsideAccess(
        () => Promise.reject(refused),
        async () => 'secret',
      ),
    ).rejects.toBe(refused);
    await expect(
      readAlongsideAccess(
        () => Promise.reject(refused),
        async () => {
          throw new Error('404');
        },
      ),
    ).rejects.toBe(refused);
  });

  it("answers with the read's error once the check has passed", async () => {
    const missing = new Error('404');
    await expect(
      readAlongsideAccess(
        async () => 'member',
        async () => {
          throw missing;
        },
      ),
    ).rejects.toBe(missing);
  });
});
