import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { decodeJwt } from 'jose';
import { createAgentKey } from '#lib/auth/agent-keys.ts';
import { addGalleryPhoto } from '#lib/media/gallery-writes.ts';
import { addPhoto } from '#lib/media/photo-writes.ts';
import { agentEntities, type EntityName } from '#lib/records/entities.ts';
import { localUserId } from '../../infra/local/dev-issuer.ts';
import { createRecordVia, limitedFields, minimalBodies } from './agents.ts';
import { api } from './api.ts';
import { png } from './images.ts';
import { baseUrl, obtainTokens, registerClient, startAuthorization } from './oauth.ts';
import { arrangeTenant, platformAdminToken, type Tenant } from './tenants.ts';
import { issuer } from './tokens.ts';

type AgentEntity = Exclude<EntityName, 'profile'>;

/**
 * One real tenant with something of every kind the API names by id (records of every agent kind,
 * an edit session with a staged changeset, a Change History entry, photos, a consent request, an
 * assistant's grant, an admin invite), each carrying a marker string; and a second, real tenant next to it. Tests that
 * ask "can the neighbour reach this?" use the first tenant's ids with the second's credentials,
 * and look for the marker and the ids in whatever comes back.
 */
export interface TenantWorld {
  /** Text in the victim's data that nothing may ever show to anyone else. */
  marker: string;
  victim: Tenant & {
    agentKey: string;
    readOnlyAgentKey: string;
    /** Access tokens of the victim owner's assistant: for the edits API and for the tool server. */
    assistantEditsToken: string;
    assistantMcpToken: string;
    ownerUserId: string;
    records: Record<AgentEntity, string>;
    sessionId: string;
    changesetId: string;
    changesetItemId: string;
    changeLogEntryId: string;
    photoId: string;
    consentRequestId: string;
    /** The grant behind assistantMcpToken. */
    grantId: string;
    inviteId: string;
    inviteeEmail: string;
    /** A webhook of the victim's agent key (to a closed loopback port) and one delivery attempt of it. */
    webhookId: string;
    webhookDeliveryId: string;
  };
  attacker: Tenant & {
    agentKey: string;
    assistantEditsToken: string;
    assistantMcpToken: string;
    /** A signed-in user who is a member of nothing. */
    strangerToken: string;
  };
  galleryPhotoId: string;
  /** Every id of the victim's that a response to someone else must not carry. */
  victimIds(): string[];
}

const editsResource = () => `${baseUrl()}/api/v1/edits`;
const mcpResource = () => `${baseUrl()}/mcp`;

async function expectStatus<T>(what: string, status: number, response: { status: number; body: T }) {
  if (response.status !== status)
    throw new Error(`${what}: ${response.status} ${JSON.stringify(response.body)}`);
  return response.body;
}

/** A loopback port nothing listens on (one the system just gave out and took back). */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export async function arrangeTenantWorld(): Promise<TenantWorld> {
  const marker = `VICTIM-MARKER-${randomUUID().slice(0, 8)}`;
  const [victim, attacker] = await Promise.all([arrangeTenant(), arrangeTenant()]);
  const keyOf = async (businessId: string, scopes: ('read' | 'write')[]) =>
    (await createAgentKey({ name: `matrix-${scopes.join('-')}`, businesses: [businessId], scopes })).key;
  const victimKey = await keyOf(victim.businessId, ['read', 'write']);

  // Records of every agent kind, each with the marker in its label field.
  const records = {} as Record<AgentEntity, string>;
  for (const definition of agentEntities) {
    const entity = definition.name as AgentEntity;
    const [labelField] = limitedFields[entity];
    const record = await createRecordVia({ businessId: victim.businessId, key: victimKey }, entity, {
      ...minimalBodies[entity],
      [labelField]: `${marker} ${entity}`,
    });
    records[entity] = record.id;
  }

  // A session with a staged changeset (one update of the marked FAQ), and a Change History entry.
  const owner = victim.tokens.owner;
  const session = (await expectStatus(
    'open session',
    201,
    await api('POST', '/api/v1/edits/sessions', { token: owner, json: { business_id: victim.businessId } }),
  )) as { data: { id: string } };
  const changeset = (await expectStatus(
    'stage changeset',
    201,
    await api('POST', `/api/v1/edits/sessions/${session.data.id}/changesets`, {
      token: owner,
      json: {
        summary: `${marker} changeset`,
        items: [
          { entity: 'faq', action: 'update', record_id: records.faq, fields: { answer: `${marker} answer` } },
        ],
      },
    }),
  )) as { data: { id: string; items: { id: string }[] } };
  const changeLog = (await expectStatus(
    'change log',
    200,
    await api('GET', `/api/v1/edits/businesses/${victim.businessId}/change-log?limit=1`, { token: owner }),
  )) as { data: { id: string }[] };

  const photo = await addPhoto({
    businessId: victim.businessId,
    bytes: png(8, 8, [0x10, 0x20, 0x30]),
    contentType: 'image/png',
    width: 8,
    height: 8,
    altText: `${marker} photo`,
    source: 'upload',
  });
  const gallery = await addGalleryPhoto({
    industryId: 'matrix',
    bytes: png(8, 8, [1, 2, 3]),
    contentType: 'image/png',
  });

  // A consent request the victim owner has opened (and so owns).
  const client = await registerClient({ client_name: `${marker} client` });
  const started = await startAuthorization({ clientId: client.client_id });
  if (!started.requestId) throw new Error(`authorize did not reach consent: ${started.location}`);
  await expectStatus(
    'read consent',
    200,
    await api('GET', `/api/v1/oauth/requests/${started.requestId}`, { token: owner }),
  );

  // A pending admin invite for someone of the victim's side.
  const inviteeEmail = `invitee-${marker.toLowerCase()}@victim.example`;
  const invite = (await expectStatus(
    'invite',
    201,
    await api('POST', '/api/v1/admin/users', { token: platformAdminToken(), json: { email: inviteeEmail } }),
  )) as { data: { id: string } };

  // A webhook of the victim's key, pointing at a loopback port nothing listens on, and its test ping
  // (a failed attempt, in its delivery log).
  const webhook = (await expectStatus(
    'create webhook',
    201,
    await api('POST', '/api/v1/agent/webhooks', {
      token: victimKey,
      json: { url: `http://127.0.0.1:${await closedPort()}/hook`, description: `${marker} webhook` },
    }),
  )) as { data: { id: string } };
  const ping = (await expectStatus(
    'test webhook',
    200,
    await api('POST', `/api/v1/agent/webhooks/${webhook.data.id}/test`, { token: victimKey }),
  )) as { data: { id: string } };

  const [victimEdits, victimMcp, attackerEdits, attackerMcp] = await Promise.all([
    obtainTokens({ userToken: owner, resource: editsResource() }),
    obtainTokens({ userToken: owner, resource: mcpResource() }),
    obtainTokens({ userToken: attacker.tokens.owner, resource: editsResource() }),
    obtainTokens({ userToken: attacker.tokens.owner, resource: mcpResource() }),
  ]);

  const firstEntry = changeLog.data[0];
  const firstItem = changeset.data.items[0];
  if (!firstEntry || !firstItem) throw new Error('the victim has no change-log entry or changeset item');
  const world: TenantWorld = {
    marker,
    victim: {
      ...victim,
      agentKey: victimKey,
      readOnlyAgentKey: await keyOf(victim.businessId, ['read']),
      assistantEditsToken: victimEdits.tokens.access_token,
      assistantMcpToken: victimMcp.tokens.access_token,
      ownerUserId: localUserId(victim.emails.owner),
      records,
      sessionId: session.data.id,
      changesetId: changeset.data.id,
      changesetItemId: firstItem.id,
      changeLogEntryId: firstEntry.id,
      photoId: photo.id,
      consentRequestId: started.requestId,
      grantId: String(decodeJwt(victimMcp.tokens.access_token).gid),
      inviteId: invite.data.id,
      inviteeEmail,
      webhookId: webhook.data.id,
      webhookDeliveryId: ping.data.id,
    },
    attacker: {
      ...attacker,
      agentKey: await keyOf(attacker.businessId, ['read', 'write']),
      assistantEditsToken: attackerEdits.tokens.access_token,
      assistantMcpToken: attackerMcp.tokens.access_token,
      strangerToken: await (await issuer()).mintToken({
        email: `stranger-${randomUUID().slice(0, 8)}@nowhere.example`,
      }),
    },
    galleryPhotoId: gallery.id,
    victimIds: () => [
      world.victim.businessId,
      ...Object.values(world.victim.records),
      world.victim.sessionId,
      world.victim.changesetId,
      world.victim.changesetItemId,
      world.victim.changeLogEntryId,
      world.victim.photoId,
      world.victim.consentRequestId,
      world.victim.grantId,
      world.victim.inviteId,
      world.victim.ownerUserId,
      world.victim.webhookId,
      world.victim.webhookDeliveryId,
      ...Object.values(world.victim.emails),
    ],
  };
  return world;
}
