import { BadRequestError, NotFoundError } from '#lib/http/errors.ts';
import { type ClientBlock, putClientBlock, removeClientBlock } from '#lib/oauth/client-blocks.ts';
import { isClientMetadataUrl } from '#lib/oauth/client-metadata-document.ts';
import { revokeClient } from '#lib/oauth/clients.ts';
import { endClientGrants } from '#lib/oauth/grants.ts';
import { securityEvent } from '#lib/oauth/security-events.ts';

/**
 * What an operator does to stop a client (the oauth-client CLI): revoke a registered client, or
 * block a metadata-document client by its URL. Either marks the client first, so that no new
 * grant can start, then ends every grant it has, so its access tokens are refused from the next
 * request on and its refresh tokens with invalid_grant. Both are safe to run again: a run cut
 * short is finished by the next.
 */

export async function revokeClientAccess(clientId: string) {
  if (isClientMetadataUrl(clientId)) {
    throw new BadRequestError(`${clientId} is a client metadata document URL: block it instead`);
  }
  const client = await revokeClient(clientId);
  const grantsEnded = await endClientGrants(clientId);
  securityEvent('client_revoked', { client_id: clientId, grants_ended: grantsEnded });
  return { ...client, grants_ended: grantsEnded };
}

export async function blockClient(url: string): Promise<ClientBlock & { grants_ended: number }> {
  if (!isClientMetadataUrl(url) || !URL.canParse(url)) {
    throw new BadRequestError(
      `${url} is not a client metadata document URL; a registered client is revoked instead`,
    );
  }
  const block = await putClientBlock(url);
  const grantsEnded = await endClientGrants(url);
  securityEvent('client_blocked', { client_id: url, grants_ended: grantsEnded });
  return { ...block, grants_ended: grantsEnded };
}

/** Lift a block: the client may ask people again; the grants the block ended stay ended. */
export async function unblockClient(url: string): Promise<{ client_id: string; unblocked: true }> {
  if (!(await removeClientBlock(url))) throw new NotFoundError(`${url} is not blocked`);
  securityEvent('client_unblocked', { client_id: url });
  return { client_id: url, unblocked: true };
}
