import { describe, expect, it } from 'vitest';
import {
  CLIENT_TIMEOUTS,
  DEFAULT_FUNCTION_TIMEOUT_SECONDS,
  GATEWAY_TIMEOUT_SECONDS,
  MAX_FUNCTION_TIMEOUT_SECONDS,
  worstCaseCallMs,
} from '#lib/config/timeouts.ts';
import { routeTable } from '#lib/routes/route-table.ts';

describe('timeouts', () => {
  it('ends every function before API Gateway gives up on it', () => {
    expect(MAX_FUNCTION_TIMEOUT_SECONDS).toBeLessThan(GATEWAY_TIMEOUT_SECONDS);
    expect(DEFAULT_FUNCTION_TIMEOUT_SECONDS).toBeLessThanOrEqual(MAX_FUNCTION_TIMEOUT_SECONDS);
    for (const route of routeTable) {
      expect(route.timeoutSeconds ?? DEFAULT_FUNCTION_TIMEOUT_SECONDS, route.operationId).toBeLessThanOrEqual(
        MAX_FUNCTION_TIMEOUT_SECONDS,
      );
    }
  });

  it('lets one SDK call of any client give up inside the shortest function timeout', () => {
    const shortest = Math.min(
      DEFAULT_FUNCTION_TIMEOUT_SECONDS,
      ...routeTable.map((route) => route.timeoutSeconds ?? DEFAULT_FUNCTION_TIMEOUT_SECONDS),
    );
    for (const [dependency, settings] of Object.entries(CLIENT_TIMEOUTS)) {
      expect(worstCaseCallMs(settings), dependency).toBeLessThan(shortest * 1000);
    }
  });

  it('counts every attempt with its backoff', () => {
    expect(worstCaseCallMs({ connectionTimeout: 1_000, requestTimeout: 3_000, maxAttempts: 3 })).toBe(
      3 * 4_000 + 500 + 1_000,
    );
  });
});
