import type { ConsolePagesConfig } from '../config.ts';

/** An answer of the console API: the status, and the body parsed when it is JSON. */
export interface ApiAnswer {
  status: number;
  body: unknown;
}

/** Call the console API (config apiUrl) with the signed-in person's access token. */
export async function callApi(
  config: ConsolePagesConfig,
  method: string,
  path: string,
  token: string,
): Promise<ApiAnswer> {
  let response: Response;
  try {
    response = await fetch(`${config.apiUrl.replace(/\/+$/, '')}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}` },
    });
  } catch (error) {
    return { status: 0, body: { message: `The service did not answer (${(error as Error).message})` } };
  }
  const text = await response.text();
  let body: unknown = text;
  try {
    body = text === '' ? null : JSON.parse(text);
  } catch {
    // not JSON: keep the text
  }
  return { status: response.status, body };
}

/** The message an error body carries: ErrorResponse, HTTPValidationError or API Gateway's own. */
export function messageOf(body: unknown): string {
  if (body && typeof body === 'object') {
    const { error, detail, message } = body as {
      error?: { message?: unknown };
      detail?: unknown;
      message?: unknown;
    };
    if (error && typeof error.message === 'string') return error.message;
    if (Array.isArray(detail)) {
      return detail
        .map(
          (item: { loc?: unknown; msg?: unknown }) =>
            `${Array.isArray(item.loc) ? item.loc.join('.') : ''}: ${String(item.msg)}`,
        )
        .join('; ');
    }
    if (typeof message === 'string') return message;
  }
  return typeof body === 'string' ? body : '';
}
