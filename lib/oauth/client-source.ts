import type { OAuthClient } from '#lib/oauth/clients.ts';

/**
 * Who vouches for a client, as the consent page and the grants list say it: an operator
 * (`preregistered`, the CLI), the client's own https URL (`metadata_document`), or nobody
 * (`dynamic`, registered by anyone through RFC 7591). Apart from clients.ts so that what only
 * reads a stored source (the token endpoint) does not bundle the client registry.
 */
export const CLIENT_SOURCES = ['preregistered', 'metadata_document', 'dynamic'] as const;
export type ClientSource = (typeof CLIENT_SOURCES)[number];

const SOURCE_OF: Record<OAuthClient['source'], ClientSource> = {
  cli: 'preregistered',
  metadata_document: 'metadata_document',
  registration: 'dynamic',
};

export const clientSource = (client: Pick<OAuthClient, 'source'>): ClientSource => SOURCE_OF[client.source];
