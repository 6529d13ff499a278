import type { AssistantPrincipal } from '#lib/auth/principal.ts';

/** An assistant with both edits scopes, for unit tests of the tool server that reach no database. */
export const testAssistant: AssistantPrincipal = {
  kind: 'assistant',
  userId: 'user-1',
  clientId: 'client-1',
  scopes: ['edits:read', 'edits:write'],
  grantId: 'grant-1',
};
