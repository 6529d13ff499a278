import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { routeTable } from '#lib/routes/route-table.ts';
import { buildBundle, coldStart } from '../../bench/cold-start.ts';
import { sampleEvent } from '../../infra/local/sample-event.ts';

// An ESM bundle with the SDK inside can build fine and still fail at import (DESIGN §2), so every
// bundle, built as CDK builds it, is imported and invoked once in a fresh process.
describe('deployable bundles', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'bps-bundles-'));
  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  it.each(routeTable.map((route) => [route.operationId, route] as const))(
    '%s imports and answers in a fresh process',
    async (_id, route) => {
      const harness = inject('harness');
      const outDir = join(workDir, route.operationId);
      mkdirSync(outDir);
      const { file } = await buildBundle(route.handler, outDir);

      const result = await coldStart(file, sampleEvent(route, harness.credentials), harness.env);

      expect(result.statusCode).toBeGreaterThanOrEqual(200);
      expect(result.statusCode).toBeLessThan(500);
    },
  );
});
