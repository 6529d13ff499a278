import { randomUUID } from 'node:crypto';
import { describe, expect, it, onTestFinished } from 'vitest';
import { dynamoClient } from '#lib/db/client.ts';
import { endGrantsOfEmail } from '#lib/oauth/user-grants-end.ts';
import { api } from '../support/api.ts';
import { failsInOneLine, runOperatorCli, securityEvents } from '../support/cli-runs.ts';
import { grantIdOf } from '../support/grant-items.ts';
import { mcpStatus, refresh } from '../support/grant-probes.ts';
import {
  OFFLINE_SCOPE,
  obtainTokens,
  postForm,
  REDIRECT_URI,
  registerClient,
  startAuthorization,
} from '../support/oauth.ts';
import { arrangeTenant } from '../support/tenants.ts';

/**
 * `npm run admin -- end-grants --email …`: an operator ends every assistant grant of a person whose
 * account was disabled or deleted.
 */
const admin = (args: string[], env: Record<string, string> = {}) => runOperatorCli('admin.ts', args, env);

/** How a usage mistake ends: exit 2, one line on stderr and the usage line, nothing on stdout. */
async function usageMistake(running: Promise<unknown>): Promise<string> {
  const failure = await running.then(
    () => {
      throw new Error('the command succeeded');
    },
    (error: { code: number; stdout: string; stderr: string }) => error,
  );
  expect(failure.code).toBe(2);
  expect(failure.stdout).toBe('');
  const lines = failure.stderr.trim().split('\n');
  expect(lines, failure.stderr).toEqual([
    expect.any(String),
    expect.stringMatching(/^Usage: npm run admin /),
  ]);
  return lines[0] ?? '';
}

describe('npm run admin -- end-grants', () => {
  it("ends every grant of the person with that address, prints what it ended, and leaves everyone else's alone", {
    timeout: 120_000,
  }, async () => {
    // Prepare: the person holds two assistants that stay connected and one session; someone else
    // holds one.
    const person = await arrangeTenant();
    const bystander = await arrangeTenant();
    const theirs = [
      await obtainTokens({ userToken: person.tokens.owner }),
      await obtainTokens({ userToken: person.tokens.owner }),
      await obtainTokens({ userToken: person.tokens.owner, scope: 'edits:read' }),
    ];
    const other = await obtainTokens({ userToken: bystander.tokens.owner });

    // Act: the address as the operator might type it.
    const { stdout, stderr } = await admin([
      'end-grants',
      '--email',
      ` ${person.emails.owner.toUpperCase()}`,
      '--yes',
    ]);

    // Assess: each of the person's grants ended and listed, one security event each.
    const result = JSON.parse(stdout);
    const endedIds = theirs.map((connection) => grantIdOf(connection.tokens.access_token)).sort();
    expect(result).toMatchObject({ email: person.emails.owner, codes_withdrawn: 0 });
    expect(result.user_ids).toHaveLength(1);
    expect(result.ended.map((grant: { grant_id: string }) => grant.grant_id).sort()).toEqual(endedIds);
    expect(result.ended[0]).toEqual({
      grant_id: expect.any(String),
      user_id: result.user_ids[0],
      client_id: expect.any(String),
      client_name: 'Test Assistant',
      created_at: expect.any(String),
    });
    expect(
      securityEvents(stderr)
        .map((event) => [event.security_event, event.grant_id])
        .sort(),
    ).toEqual(endedIds.map((grantId) => ['grant_ended_by_operator', grantId]));
    for (const connection of theirs) expect(await mcpStatus(connection.tokens.access_token)).toBe(401);
    for (const connection of theirs.slice(0, 2)) {
      const refused = await refresh(connection.tokens.refresh_token as string, connection.client.client_id);
      expect(refused.body.error).toBe('invalid_grant');
    }
    const listed = await api('GET', '/api/v1/oauth/grants', { token: person.tokens.owner });
    expect(listed.body.grants).toEqual([]);
    expect(await mcpStatus(other.tokens.access_token)).toBe(200);
    expect((await refresh(other.tokens.refresh_token as string, other.client.client_id)).status).toBe(200);

    // Running it again ends nothing twice.
    const again = await admin(['end-grants', '--email', person.emails.owner, '--yes']);
    expect(JSON.parse(again.stdout).ended).toEqual([]);
    expect(securityEvents(again.stderr)).toEqual([]);
  });

  it('answers --help without doing anything, even with no stack; a usage mistake exits 2 naming it', async () => {
    const nowhere = { LOCAL_STATE_DIR: `/tmp/no-stack-${randomUUID()}` };

    const help = await admin(['--help'], nowhere);

    expect(help.stdout).toContain('end-grants --email E');
    expect(help.stderr).toBe('');
    expect(await usageMistake(admin(['end-grants', '--bogus'], nowhere))).toMatch(
      /^error: Unknown option '--bogus'/,
    );
    expect(await usageMistake(admin(['end-grants'], nowhere))).toContain('end-grants needs --email');
    expect(await usageMistake(admin(['end-grants', '--email', 'not-an-address'], nowhere))).toContain(
      'end-grants needs --email',
    );
    expect(await usageMistake(admin(['end-grant', '--email', 'a@b.example'], nowhere))).toContain(
      "unknown command 'end-grant'",
    );
    // Usage right but no stack: a refusal of the work, exit 1, before it would ask for --yes.
    expect(await failsInOneLine(admin(['end-grants', '--email', 'a@b.example'], nowhere))).toContain(
      'The local stack is not running',
    );
  }, 60_000);
});

describe('ending a person’s grants (in this process, to see its reads and an unexchanged approval)', () => {
  it('reads the address, the approvals and the grants consistently (DynamoDB Local always does: the parameters are asserted)', async () => {
    const person = await arrangeTenant();
    await obtainTokens({ userToken: person.tokens.owner });
    const reads = recordReads();

    const result = await endGrantsOfEmail(person.emails.owner);

    expect(result.ended).toHaveLength(1);
    const baseTableReads = reads().filter((read) => read.command !== 'QueryCommand' || !read.indexName);
    expect(baseTableReads.map((read) => read.command).sort()).toEqual([
      'BatchGetItemCommand',
      'QueryCommand',
      'QueryCommand',
    ]);
    for (const read of baseTableReads) expect(read.consistent, read.command).toBe(true);
  });

  it('withdraws an approval whose code is not yet exchanged: the exchange is refused, no grant starts', async () => {
    const person = await arrangeTenant();
    const client = await registerClient();
    const started = await startAuthorization({ clientId: client.client_id, scope: OFFLINE_SCOPE });
    const approved = await api('POST', `/api/v1/oauth/requests/${started.requestId}/approve`, {
      token: person.tokens.owner,
    });
    const waited: number[] = [];

    const result = await endGrantsOfEmail(person.emails.owner, {
      wait: async (ms) => {
        waited.push(ms);
      },
    });
    const exchanged = await postForm('/oauth/token', {
      grant_type: 'authorization_code',
      code: new URL(approved.body.redirect_to).searchParams.get('code') as string,
      redirect_uri: REDIRECT_URI,
      code_verifier: started.verifier,
      client_id: client.client_id,
    });

    expect(result).toMatchObject({ ended: [], codes_withdrawn: 1 });
    // It waits for an exchange that read the code before the withdrawal to have finished.
    expect(waited).toHaveLength(1);
    expect(exchanged.status).toBe(400);
    expect(exchanged.body.error).toBe('invalid_grant');
    const listed = await api('GET', '/api/v1/oauth/grants', { token: person.tokens.owner });
    expect(listed.body.grants).toEqual([]);
  });
});

/** Every DynamoDB read this process's client sends meanwhile: its command, index and ConsistentRead. */
function recordReads() {
  const name = `recordReads-${randomUUID()}`;
  const seen: { command: string; indexName?: string; consistent: boolean | undefined }[] = [];
  dynamoClient.middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as {
        IndexName?: string;
        ConsistentRead?: boolean;
        RequestItems?: Record<string, { ConsistentRead?: boolean }>;
      };
      if (context.commandName === 'QueryCommand') {
        seen.push({
          command: 'QueryCommand',
          ...(input.IndexName ? { indexName: input.IndexName } : {}),
          consistent: input.ConsistentRead,
        });
      }
      if (context.commandName === 'BatchGetItemCommand') {
        const requests = Object.values(input.RequestItems ?? {});
        seen.push({
          command: 'BatchGetItemCommand',
          consistent: requests.every((request) => request.ConsistentRead === true),
        });
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  onTestFinished(() => {
    dynamoClient.middlewareStack.remove(name);
  });
  return () => seen;
}
