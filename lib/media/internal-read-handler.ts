import { besideInternalKey, internalAuth } from '#lib/auth/internal-api-key.ts';
import type { InternalServicePrincipal } from '#lib/auth/principal.ts';
import type { EarlyRequest } from '#lib/http/early-read.ts';
import { httpHandler } from '#lib/http/pipeline.ts';
import type { RouteDefinition } from '#lib/http/route.ts';

/**
 * The handler of an internal media route whose whole operation is one read of what its path and
 * query name: the read starts while the internal key is checked (`besideInternalKey`; in AWS the
 * keys come from Secrets Manager at a cold start), and its result is the answer once the key has
 * passed. A request whose path or query does not validate reads after the key, as usual.
 */
export function internalReadHandler<R extends RouteDefinition, T>(
  route: R,
  read: (request: Pick<EarlyRequest<R>, 'params' | 'query'>) => Promise<T>,
) {
  const early = besideInternalKey((request: EarlyRequest<R>) => read(request));
  return httpHandler<R, InternalServicePrincipal, T>(
    route,
    internalAuth,
    async (input) => ({ data: await (input.early ?? read(input)) }),
    { earlyRead: early },
  );
}
