import { META_CLIENT_CAPABILITIES, META_CLIENT_INFO, META_PROTOCOL_VERSION } from '#lib/mcp/era.ts';
import { once } from '#lib/validation/lazy.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * The per-request protocol fields of a modern request (MCP 2026-07-28, "Base Protocol" → "_meta"):
 * the protocol version and the client's capabilities are required in every request's
 * `params._meta`, the client's name and version are optional. Other `_meta` keys pass untouched.
 * The client info is self-reported: kept for logs, never used to decide anything.
 */
const Implementation = z.looseObject({
  name: z.string().check(z.maxLength(200)),
  version: z.string().check(z.maxLength(200)),
});

const RequestMeta = once(() =>
  z.looseObject({
    [META_PROTOCOL_VERSION]: z.string().check(z.maxLength(64)),
    [META_CLIENT_CAPABILITIES]: z.record(z.string(), z.unknown()),
    [META_CLIENT_INFO]: z.optional(Implementation),
  }),
);

const RequestParams = once(() => z.looseObject({ _meta: RequestMeta() }));

export interface RequestMeta {
  protocolVersion: string;
  clientInfo?: { name: string; version: string };
  clientCapabilities: Record<string, unknown>;
}

/** The request's protocol fields, or a sentence naming what is missing or malformed. */
export function readRequestMeta(params: unknown): { meta: RequestMeta } | { problem: string } {
  const parsed = z.safeParse(RequestParams(), params ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = ['params', ...(issue?.path ?? []).map(String)].join('.');
    return { problem: `${where}: ${issue?.message ?? 'invalid'}` };
  }
  const meta = parsed.data._meta;
  return {
    meta: {
      protocolVersion: meta[META_PROTOCOL_VERSION],
      clientCapabilities: meta[META_CLIENT_CAPABILITIES],
      ...(meta[META_CLIENT_INFO] ? { clientInfo: meta[META_CLIENT_INFO] } : {}),
    },
  };
}
