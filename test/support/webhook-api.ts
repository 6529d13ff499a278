import { randomUUID } from 'node:crypto';
import { expect, inject } from 'vitest';
import { createAgentKey } from '#lib/auth/agent-keys.ts';
import type { RouteDefinition } from '#lib/http/route.ts';
import { type WebhookOperation, webhookRoutes } from '#lib/routes/webhooks.ts';
import { contractProblems } from './openapi-contract.ts';

/**
 * Calls of the webhooks API (lib/routes/webhooks.ts) for its tests, over HTTP against the local
 * harness, each answer checked against the OpenAPI document.
 */
export const BASE = '/api/v1/agent/webhooks';

export interface Answer {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are read as loose JSON.
  body: any;
}

/** Call one operation with a key; every answer must be one the OpenAPI document describes. */
export async function call(
  operation: WebhookOperation,
  path: string,
  key: string | undefined,
  json?: unknown,
): Promise<Answer> {
  const route: RouteDefinition = webhookRoutes[operation];
  const response = await fetch(`${inject('harness').baseUrl}${path}`, {
    method: route.method,
    headers: {
      ...(key ? { authorization: `Bearer ${key}` } : {}),
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  const text = await response.text();
  expect(contractProblems(route, { status: response.status, headers: response.headers, text })).toEqual([]);
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

export const newKey = async (scopes: ('read' | 'write')[] = ['read']) =>
  (await createAgentKey({ name: 'webhooks-test', businesses: [randomUUID()], scopes })).key;

export function expectInvalid(answer: Answer, field: string, what: string) {
  expect(answer.status, `${what}: ${JSON.stringify(answer.body)}`).toBe(422);
  expect(answer.body.error.code).toBe('VALIDATION_ERROR');
  expect(
    answer.body.error.details.map((issue: { loc: unknown[] }) => issue.loc.slice(0, 2).join('.')),
    what,
  ).toContain(field);
}
