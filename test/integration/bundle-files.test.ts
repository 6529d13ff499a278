import { mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { REVIEW_VIEW_FILE } from '#lib/mcp/review-view.ts';
import { convertToolSchemas, TOOL_JSON_SCHEMAS_FILE } from '#lib/mcp/tool-json-schemas.ts';
import { type ToolDefinition, tools } from '#lib/mcp/tools.ts';
import { docsRoutes } from '#lib/routes/docs.ts';
import { mcpRoutes } from '#lib/routes/mcp.ts';
import { buildBundle, coldStart } from '../../bench/cold-start.ts';
import { assistantToken } from '../../bench/oauth-calls.ts';
import { OPENAPI_DOCUMENT_FILE } from '../../infra/bundled-openapi-document.ts';
import { sampleEvent } from '../../infra/local/sample-event.ts';
import { buildOpenApiDocument } from '../../infra/openapi.ts';

/**
 * Work that depends only on the sources is done when a function is bundled and ships as files
 * beside its code (infra/bundle-files.ts): each function is bundled as CDK bundles it, with its
 * files, its first answer in a fresh process (its directory as LAMBDA_TASK_ROOT) is the one the
 * source gives, and what that work needs is not in the bundle.
 */
const sourceModules = (modules: string[], pattern: RegExp) => modules.filter((path) => pattern.test(path));

describe('files bundled beside functions', () => {
  const workDir = mkdtempSync(join(tmpdir(), 'bps-bundle-files-'));
  afterAll(() => rmSync(workDir, { recursive: true, force: true }));
  const bundle = (name: string, entry: string) => {
    mkdirSync(join(workDir, name));
    return buildBundle(entry, join(workDir, name));
  };

  it('the tool server carries its tools’ JSON Schemas and review view, not zod’s converter, and lists the tools byte for byte as the source does', async () => {
    const harness = inject('harness');
    const route = mcpRoutes.handleMcp;
    const { file, modules } = await bundle('mcp', route.handler);
    expect(readdirSync(join(workDir, 'mcp'))).toEqual(
      expect.arrayContaining([REVIEW_VIEW_FILE, TOOL_JSON_SCHEMAS_FILE]),
    );
    expect(
      sourceModules(modules, /node_modules\/zod\/v4\/core\/(to-json-schema|json-schema-processors)\.js$/),
    ).toEqual([]);

    const token = await assistantToken(harness, '/mcp');
    const event = sampleEvent(route, harness.credentials);
    event.headers.authorization = `Bearer ${token}`;
    const bundled = await coldStart(file, event, harness.env);

    // The harness runs the handler from source, with the files written into its task root at start.
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
    // And the schemas it lists are those the tools' zod schemas convert to now, in this process.
    const listed = (JSON.parse(bundled.body ?? '{}') as { result: { tools: Tool[] } }).result.tools;
    const converted = convertToolSchemas(tools as ToolDefinition[]);
    expect(
      Object.fromEntries(
        listed.map(({ name, inputSchema, outputSchema }) => [name, { inputSchema, outputSchema }]),
      ),
    ).toEqual(JSON.parse(JSON.stringify(converted)));
  });

  it('the OpenAPI document’s function carries the document, not its builder, zod classic or zod-to-openapi, and serves the document the source builds', async () => {
    const harness = inject('harness');
    const route = docsRoutes.getOpenApiDocument;
    const { file, modules } = await bundle('openapi', route.handler);
    expect(readdirSync(join(workDir, 'openapi'))).toContain(OPENAPI_DOCUMENT_FILE);
    expect(
      sourceModules(
        modules,
        /(infra\/openapi[^/]*\.ts|zod\/v4\/classic\/|zod\/v4\/core\/to-json-schema|@asteasolutions\/zod-to-openapi\/)/,
      ),
    ).toEqual([]);

    const bundled = await coldStart(file, sampleEvent(route, harness.credentials), harness.env);

    expect(bundled.statusCode).toBe(200);
    // The one part that varies: the server, from the request's host.
    const fromSource = { ...buildOpenApiDocument(), servers: [{ url: new URL(harness.baseUrl).origin }] };
    expect(JSON.parse(bundled.body ?? '{}')).toEqual(JSON.parse(JSON.stringify(fromSource)));
  });
});
