import type { EditsPrincipal } from '#lib/auth/principal.ts';
import type { Actor } from '#lib/records/record-types.ts';

/** An assistant's changes name the user it acted for and which assistant it was. */
export interface AssistantActor extends Actor {
  type: 'assistant';
  client_id: string;
}

/** Who the Change History and `updated_by` name for a change made through the edits API. */
export function actorOf(principal: EditsPrincipal): Actor {
  if (principal.kind === 'user') return { type: 'user', id: principal.userId };
  const actor: AssistantActor = { type: 'assistant', id: principal.userId, client_id: principal.clientId };
  return actor;
}
