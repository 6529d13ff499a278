import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { RouteDefinition } from '#lib/http/route.ts';
import { routeTable } from '#lib/routes/route-table.ts';
import { type RunningEmulator, startDynamoDbLocal, startS3, startSes } from '../../infra/local/emulators.ts';
import type { RunningHarness } from '../../infra/local/harness.ts';
import { synthesizeLocalTemplates } from '../../infra/local/iam/local-synth.ts';
import type { TemplateSet } from '../../infra/local/iam/template-resolver.ts';
import { LOCAL_PHOTOS_BUCKET } from '../../infra/local/local-names.ts';
import { ROOT_DIR } from '../../infra/local/paths.ts';
import { api } from '../support/api.ts';

/**
 * IAM enforcement through the real path (docs/harness.md, 'IAM enforcement'): a harness of
 * this file's own runs the route table's handlers with the policies of a synth in which one write
 * route's row grants the table for reading only. Its write is refused as AWS refuses it, and the
 * refusal is in the log; the same request to a harness over the unchanged tree succeeds. Both
 * harnesses share this file's emulators, started one after the other.
 */

const NARROWED = 'putBlogAutoSchedule';
const narrowedRoutes: RouteDefinition[] = routeTable.map((route) =>
  route.operationId === NARROWED ? { ...route, permissions: { ...route.permissions, table: 'read' } } : route,
);

let emulators: { dynamodb: RunningEmulator; s3: RunningEmulator; ses: RunningEmulator };
let narrowedTemplates: TemplateSet;
const dirs: string[] = [];

beforeAll(async () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'bps-iam-'));
  dirs.push(dataDir);
  const [dynamodb, s3, ses] = await Promise.all([
    startDynamoDbLocal(undefined),
    startS3(join(dataDir, 's3'), [LOCAL_PHOTOS_BUCKET]),
    startSes(),
  ]);
  emulators = { dynamodb, s3, ses };
  narrowedTemplates = synthesizeLocalTemplates(narrowedRoutes);
}, 120_000);

afterAll(async () => {
  await Promise.allSettled(Object.values(emulators ?? {}).map((emulator) => emulator.stop()));
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

async function withHarness<T>(
  templates: TemplateSet | undefined,
  work: (harness: RunningHarness) => Promise<T>,
): Promise<T> {
  const stateDir = mkdtempSync(join(tmpdir(), 'bps-iam-harness-'));
  dirs.push(stateDir);
  const { startHarness } = await import('../../infra/local/harness.ts');
  const harness = await startHarness({
    port: 0,
    stateDir,
    ephemeral: true,
    logRequests: false,
    rootDir: ROOT_DIR,
    emulators,
    ...(templates ? { templates } : {}),
  });
  try {
    return await work(harness);
  } finally {
    await harness.stop();
  }
}

const putSchedule = (harness: RunningHarness) => {
  const business = harness.credentials.businesses[0];
  return api('PUT', `/api/v1/businesses/${business?.id}/blog_posts/auto_schedule`, {
    baseUrl: harness.baseUrl,
    token: business?.tokens.owner,
    json: { frequency_type: 'weekly' },
  });
};

describe('IAM enforcement', () => {
  it(`refuses ${NARROWED}'s write once its row grants the table for reading only, with AWS's AccessDenied in the log`, async () => {
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    try {
      await withHarness(narrowedTemplates, async (harness) => {
        const refused = await putSchedule(harness);
        // The function gets DynamoDB's AccessDeniedException, as in AWS, and answers its 500.
        expect(refused.status).toBe(500);
        expect(refused.body.error.code).toBe('INTERNAL');

        const lines = logged.mock.calls.map((args) => args.map(String).join(' '));
        const refusal = lines.find((line) => line.startsWith(`[iam] ${NARROWED}:`));
        expect(refusal).toMatch(
          new RegExp(
            `refused: User: arn:aws:sts::000000000000:assumed-role/[\\w-]+/bp-local-${NARROWED} is not authorized to perform: dynamodb:\\w+ on resource: arn:aws:dynamodb:us-east-1:000000000000:table/business-platform-local because no identity-based policy allows the dynamodb:\\w+ action`,
          ),
        );
        const report = harness.iamReport();
        expect(report.calls.denied).toBeGreaterThan(0);
        expect(report.denials.join('\n')).toContain(`${NARROWED}: DynamoDBClient`);

        // Reading is still granted: the same function's role refuses only what the row took away.
        const business = harness.credentials.businesses[0];
        const read = await api('GET', `/api/v1/businesses/${business?.id}/blog_posts/auto_schedule`, {
          baseUrl: harness.baseUrl,
          token: business?.tokens.owner,
        });
        expect(read.status).toBe(404);
      });
    } finally {
      logged.mockRestore();
    }
  }, 120_000);

  it('lets the same write through with the unchanged tree’s policies (the control), and counts every call', async () => {
    await withHarness(undefined, async (harness) => {
      const written = await putSchedule(harness);
      expect(written.status).toBe(200);
      expect(Number(written.headers.get('x-local-iam-ms'))).toBeGreaterThan(0);
      const report = harness.iamReport();
      expect(report.calls).toMatchObject({ denied: 0 });
      expect(report.calls.allowed).toBe(report.calls.evaluated);
      expect(report.byService.DynamoDB).toBeGreaterThan(0);
    });
  }, 120_000);
});
