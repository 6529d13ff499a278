import { inject } from 'vitest';

// biome-ignore lint/suspicious/noExplicitAny: tests read response bodies as loose JSON and assert on them.
export interface ApiResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

export interface ApiRequest {
  token?: string;
  /** Serialised as JSON with content-type application/json. */
  json?: unknown;
  /** Sent as is (for malformed bodies and other content types). */
  raw?: string | Buffer;
  headers?: Record<string, string>;
  /** Another harness than the shared one (tests that need a stack of their own). */
  baseUrl?: string;
}

/** Call the service through the local harness, as any HTTP client would. */
// biome-ignore lint/suspicious/noExplicitAny: as above.
export async function api<T = any>(
  method: string,
  path: string,
  request: ApiRequest = {},
): Promise<ApiResponse<T>> {
  const headers: Record<string, string> = { ...request.headers };
  if (request.token) headers.authorization = `Bearer ${request.token}`;
  let body: string | Buffer | undefined = request.raw;
  if (request.json !== undefined) {
    body = JSON.stringify(request.json);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${request.baseUrl ?? inject('harness').baseUrl}${path}`, {
    method,
    headers,
    body,
  });
  const text = await response.text();
  let parsed: unknown = text;
  try {
    parsed = text === '' ? undefined : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, headers: response.headers, body: parsed as T };
}
