/**
 * How the bench's fixtures (bench/sample-fixtures.ts, bench/consent-fixtures.ts) call a running
 * stack: a JSON request with a console user's, an agent's or a platform admin's credential, the
 * same expecting one status and giving its `data`, the demo business and its owner's token, and
 * `oncePerStack` for what every fixture of a run shares.
 */
import type { HarnessInfo } from '../infra/local/harness-process.ts';

/** What making a fixture needs of a running stack (its state directory holds the dev issuer's key). */
export type Stack = Pick<HarnessInfo, 'baseUrl' | 'credentials' | 'stateDir'>;

/** A JSON call to the stack as a console user, an agent or a platform admin makes it. */
export async function send(
  stack: Stack,
  method: string,
  path: string,
  token: string,
  json?: unknown,
): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${stack.baseUrl}${path}`, {
    method,
    headers: {
      authorization: `Bearer ${token}`,
      ...(json === undefined ? {} : { 'content-type': 'application/json' }),
    },
    ...(json === undefined ? {} : { body: JSON.stringify(json) }),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : {} };
}

/** `send`, for a call that must answer `status`: its `data`. */
export async function expectData<T>(
  what: string,
  status: number,
  call: Promise<{ status: number; body: Record<string, unknown> }>,
): Promise<T> {
  const { status: answered, body } = await call;
  if (answered !== status) throw new Error(`${what} answered ${answered}: ${JSON.stringify(body)}`);
  return body.data as T;
}

/** The demo business (the first the stack seeded): its id and its owner's console token. */
export function demoBusiness(stack: Stack) {
  const business = stack.credentials.businesses[0];
  if (!business) throw new Error('no demo business');
  return { id: business.id, owner: business.tokens.owner };
}

/**
 * `make` run once per stack, its promise kept: what every fixture of a run shares (a registered
 * client, since registrations are rate limited per address; the local issuer's key).
 */
export function oncePerStack<T>(make: (stack: Stack) => Promise<T>): (stack: Stack) => Promise<T> {
  const made = new WeakMap<Stack, Promise<T>>();
  return (stack) => {
    let value = made.get(stack);
    if (!value) {
      value = make(stack);
      made.set(stack, value);
    }
    return value;
  };
}
