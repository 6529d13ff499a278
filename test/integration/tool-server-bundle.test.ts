import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { mcpRoutes } from '#lib/routes/mcp.ts';
import { buildBundle, coldStart } from '../../bench/cold-start.ts';
import { assistantToken } from '../../bench/oauth-calls.ts';
import { sampleEvent } from '../../infra/local/sample-event.ts';

/** zod's JSON Schema conversion: what a tools/list would run at a cold start without the bundled schemas. */
const JSON_SCHEMA_CONVERTER = /node_modules\/zod\/v4\/core\/(to-json-schema|json-schema-processors)\.js$/;

describe('the tool server as bundled for Lambda', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'bps-tool-server-bundle-'));
  afterAll(() => rmSync(workDir, { recursive: true, force: true }));

  it('carries its tools’ JSON Schemas instead of zod’s converter, and lists the tools byte for byte as the source does', async () => {
    const harness = inject('harness');
    const route = mcpRoutes.handleMcp;
    const { file, modules } = await buildBundle(route.handler, workDir);
    expect(modules.filter((path) => JSON_SCHEMA_CONVERTER.test(path))).toEqual([]);

    const token = await assistantToken(harness, '/mcp');
    const event = sampleEvent(route, harness.credentials);
    event.headers.authorization = `Bearer ${token}`;
    const bundled = await coldStart(file, event, harness.env);

    // The harness runs the handler from source, where the schemas are converted on first use.
    const fromSource = await fetch(`${harness.baseUrl}${route.path}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${token}`,
        accept: 'application/json, text/event-stream',
        'content-type': 'application/json',
      },
      body: JSON.stringify(route.example),
    });
    expect(route.example.method).toBe('tools/list');
    expect(bundled.statusCode).toBe(200);
    expect(fromSource.status).toBe(200);
    expect(bundled.body).toBe(await fromSource.text());
  });
});
