import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, type CfnResource, Stack } from 'aws-cdk-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { REVIEW_VIEW_FILE } from '#lib/mcp/review-view.ts';
import { TOOL_JSON_SCHEMAS_FILE } from '#lib/mcp/tool-json-schemas.ts';
import { docsRoutes } from '#lib/routes/docs.ts';
import { mcpRoutes } from '#lib/routes/mcp.ts';
import { OPENAPI_DOCUMENT_FILE } from '../../infra/bundled-openapi-document.ts';
import { NodeFunction } from '../../infra/node-function.ts';
import { CREDENTIAL_CHAIN_MODULE, ENVIRONMENT_CREDENTIALS_MODULE } from '../support/credential-chain.ts';

// CDK bundles the functions that carry files (infra/bundle-files.ts) for real here, as `cdk deploy`
// does: what reaches each function's asset directory is what its zip holds.
describe('the files a function carries beside its code, in its CDK asset', () => {
  const outdir = mkdtempSync(join(tmpdir(), 'bps-cdk-bundle-files-'));
  afterAll(() => rmSync(outdir, { recursive: true, force: true }));
  const routes = { mcp: mcpRoutes.handleMcp, openapi: docsRoutes.getOpenApiDocument };
  const assetDirs: Record<string, string> = {};

  beforeAll(() => {
    const app = new App({ outdir, context: { 'aws:cdk:enable-asset-metadata': true } });
    const stack = new Stack(app, 'BundleFiles');
    const functions = Object.entries(routes).map(
      ([name, route]) =>
        [
          name,
          new NodeFunction(stack, name, {
            functionName: route.operationId,
            entry: route.handler,
            description: route.operationId,
            timeoutSeconds: 10,
            environment: {},
          }),
        ] as const,
    );
    const template = app.synth().getStackByName(stack.stackName).template as {
      Resources: Record<string, { Metadata?: Record<string, string> }>;
    };
    for (const [name, fn] of functions) {
      const logicalId = stack.getLogicalId(fn.function.node.defaultChild as CfnResource);
      const assetPath = template.Resources[logicalId]?.Metadata?.['aws:asset:path'];
      if (!assetPath) throw new Error(`${name}: no asset path in the template`);
      assetDirs[name] = join(outdir, assetPath);
    }
  }, 180_000);

  it('the tool server’s asset holds its review view and its tools’ JSON Schemas beside the bundle', () => {
    const dir = assetDirs.mcp ?? '';
    expect(readdirSync(dir).sort()).toEqual(
      ['index.js', 'index.js.map', REVIEW_VIEW_FILE, TOOL_JSON_SCHEMAS_FILE].sort(),
    );
    expect(readFileSync(join(dir, REVIEW_VIEW_FILE), 'utf8')).toMatch(/^<!doctype html>/);
    const schemas = JSON.parse(readFileSync(join(dir, TOOL_JSON_SCHEMAS_FILE), 'utf8'));
    expect(Object.keys(schemas)).toContain('propose_changes');
  });

  it('the tool server’s bundle takes its AWS credentials from the environment alone', () => {
    const map = JSON.parse(readFileSync(join(assetDirs.mcp ?? '', 'index.js.map'), 'utf8')) as {
      sources: string[];
    };
    expect(map.sources.some((source) => source.endsWith(ENVIRONMENT_CREDENTIALS_MODULE))).toBe(true);
    expect(map.sources.filter((source) => CREDENTIAL_CHAIN_MODULE.test(source))).toEqual([]);
  });

  it('the OpenAPI document’s function’s asset holds the document beside the bundle', () => {
    const dir = assetDirs.openapi ?? '';
    expect(readdirSync(dir).sort()).toEqual(['index.js', 'index.js.map', OPENAPI_DOCUMENT_FILE].sort());
    const document = JSON.parse(readFileSync(join(dir, OPENAPI_DOCUMENT_FILE), 'utf8'));
    expect(document.paths[docsRoutes.getOpenApiDocument.path]).toBeDefined();
  });
});
