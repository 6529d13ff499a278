import { existsSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { routeTable } from '#lib/routes/route-table.ts';
import { ROOT_DIR } from '../../infra/local/paths.ts';

function handlerFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return handlerFiles(path);
    return entry.name.endsWith('.ts') ? [relative(ROOT_DIR, path)] : [];
  });
}

describe('route table', () => {
  it('has a handler file for every route and a route for every handler file', () => {
    // functions/triggers/ holds the functions AWS services invoke (Cognito), functions/deploy/
    // those CloudFormation runs at deployment (custom resources), and the events area its stream's
    // publisher beside the feed's routes, and the webhooks area its delivery functions (the queue's
    // and the sweep's) beside the subscription routes: not HTTP routes.
    const notRoutes = new Set([
      'functions/events/publish-events.ts',
      'functions/webhooks/deliver-webhooks.ts',
      'functions/webhooks/sweep-webhooks.ts',
    ]);
    const files = handlerFiles(join(ROOT_DIR, 'functions'))
      .filter((file) => !file.startsWith('functions/triggers/') && !file.startsWith('functions/deploy/'))
      .filter((file) => !notRoutes.has(file))
      .sort();
    const routed = routeTable.map((route) => route.handler).sort();

    expect(routed).toEqual(files);
    for (const route of routeTable) expect(existsSync(join(ROOT_DIR, route.handler))).toBe(true);
  });

  it('names each handler file after its area', () => {
    for (const route of routeTable) expect(route.handler.startsWith(`functions/${route.area}/`)).toBe(true);
  });

  it('has unique operation ids and unique method + path pairs under /api/v1/ (OAuth, MCP, docs: their own paths)', () => {
    const ids = routeTable.map((route) => route.operationId);
    const keys = routeTable.map((route) => `${route.method} ${route.path}`);

    expect(new Set(ids).size).toBe(ids.length);
    expect(new Set(keys).size).toBe(keys.length);
    for (const route of routeTable) {
      const prefix =
        { oauth: /^\/(\.well-known|oauth)\//, mcp: /^\/mcp$/, docs: /^\/openapi\.json$/ }[route.area] ??
        /^\/api\/v1\//;
      expect(route.path).toMatch(prefix);
    }
  });

  it('gives every route anyone may call a route throttle of its own, and no other route one', () => {
    for (const route of routeTable) {
      if (route.auth === 'none') expect(route.throttle, route.operationId).toMatch(/^(strict|token)$/);
      else expect(route.throttle, route.operationId).toBeUndefined();
    }
  });

  it('declares a schema for every path parameter', () => {
    for (const route of routeTable) {
      const templated = [...route.path.matchAll(/\{(\w+)\+?\}/g)].map((match) => match[1]).sort();
      const declared = Object.keys(route.request.params?.shape ?? {}).sort();
      expect(declared, route.operationId).toEqual(templated);
    }
  });
});
