import { randomUUID } from 'node:crypto';
import { type DevIssuer, loadDevIssuer } from '../infra/local/dev-issuer.ts';
import type { SampleExtras } from '../infra/local/sample-event.ts';
import { codeExchange, consentRequest, ownersGrant } from './consent-fixtures.ts';
import { demoBusiness, expectData, oncePerStack, type Stack, send } from './fixture-calls.ts';

type Ids = Record<string, string>;

/**
 * What the console, edits and OAuth routes' sample requests name, made through the running stack
 * the way its users make them, so that those routes do their work in a cold start instead of
 * answering 404 for a random id (bench/sample-items.ts does the same for the agent records).
 *
 * Made once for the run (`sharedFixtureIds`): an edit session of the demo business's owner with a
 * staged changeset in it, and a platform admin's invite for the admin update to change. Made anew
 * for each request (`ROUTE_FIXTURES`, `perRequest`): what the request uses up, such as a staged
 * changeset to apply or discard, a change to undo, a consent request to decide, a code to exchange,
 * a grant to end (those three in bench/consent-fixtures.ts), or an invite to remove or accept (with
 * a token of the invited person's).
 */

/** A record of an agent entity, made with the stack's agent key from the entity's example. */
export async function createAgentRecord(stack: Stack, collection: string, example: unknown): Promise<string> {
  const path = `/api/v1/agent/businesses/${demoBusiness(stack).id}/${collection}`;
  const made = await expectData<{ id: string }>(
    `creating a sample in ${collection}`,
    201,
    send(stack, 'POST', path, stack.credentials.agent_key, example),
  );
  return made.id;
}

const edits = (path: string) => `/api/v1/edits${path}`;

async function openEditSession(stack: Stack): Promise<string> {
  const business = demoBusiness(stack);
  const session = await expectData<{ id: string }>(
    'opening an edit session',
    201,
    send(stack, 'POST', edits('/sessions'), business.owner, { business_id: business.id }),
  );
  return session.id;
}

/** A changeset of one item (a new FAQ) staged in the session: its id and its item's. */
async function stageChangeset(stack: Stack, sessionId: string): Promise<{ id: string; itemId: string }> {
  const changeset = await expectData<{ id: string; items: { id: string }[] }>(
    'staging a changeset',
    201,
    send(stack, 'POST', edits(`/sessions/${sessionId}/changesets`), demoBusiness(stack).owner, {
      summary: 'Bench sample',
      items: [
        { entity: 'faq', action: 'create', fields: { question: 'Parking?', answer: 'Behind the shop.' } },
      ],
    }),
  );
  const itemId = changeset.items[0]?.id;
  if (!itemId) throw new Error('a staged changeset without items');
  return { id: changeset.id, itemId };
}

async function appliedChangeset(stack: Stack, sessionId: string): Promise<string> {
  const { id } = await stageChangeset(stack, sessionId);
  await expectData(
    'applying a changeset',
    200,
    send(stack, 'POST', edits(`/changesets/${id}/apply`), demoBusiness(stack).owner),
  );
  return id;
}

/** The change log's entry of a new FAQ's creation (an undo of it removes the FAQ). */
async function changeLogEntry(stack: Stack): Promise<string> {
  const business = demoBusiness(stack);
  const faqId = await createAgentRecord(stack, 'faqs', { question: 'Undo me?', answer: 'Yes.' });
  const entries = await expectData<{ id: string; record_id: string; action: string }[]>(
    'listing the change log',
    200,
    send(stack, 'GET', edits(`/businesses/${business.id}/change-log`), business.owner),
  );
  const entry = entries.find((candidate) => candidate.record_id === faqId && candidate.action === 'create');
  if (!entry) throw new Error(`the change log has no entry for FAQ ${faqId}`);
  return entry.id;
}

/** The blog schedule's route names no id: the schedule need only exist. */
async function putBlogSchedule(stack: Stack): Promise<Ids> {
  const business = demoBusiness(stack);
  await expectData(
    'setting the blog schedule',
    200,
    send(stack, 'PUT', `/api/v1/businesses/${business.id}/blog_posts/auto_schedule`, business.owner, {}),
  );
  return {};
}

/** An invite to a new platform admin: its id (its entry's in the admin list) and whom it invites. */
async function adminInvite(stack: Stack): Promise<{ id: string; email: string }> {
  const email = `bench-${randomUUID()}@example.com`;
  const invite = await expectData<{ id: string }>(
    'inviting a platform admin',
    201,
    send(stack, 'POST', '/api/v1/admin/users', stack.credentials.platform_admin_token, { email }),
  );
  return { id: invite.id, email };
}

/** The local stack's sign-in (infra/local/dev-issuer.ts): a console token for any e-mail address. */
const devIssuer = oncePerStack((stack): Promise<DevIssuer> => loadDevIssuer(stack.stateDir));

/** An invite, and the invited person's own console token, to accept it with. */
async function inviteToAccept(stack: Stack): Promise<RouteSample> {
  const invite = await adminInvite(stack);
  const token = await (await devIssuer(stack)).mintToken({ email: invite.email });
  return { itemIds: { invite_id: invite.id }, token };
}

/** Keys of the shared fixtures in the ids map: not path parameter names, so no route takes them by name. */
const SHARED = {
  session: 'edit session',
  changeset: 'staged changeset',
  changesetItem: 'staged changeset item',
  adminEntry: 'platform admin invite',
} as const;

/** The fixtures every request of the run may share (see the top of this file). */
export async function sharedFixtureIds(stack: Stack): Promise<Ids> {
  const session = await openEditSession(stack);
  const changeset = await stageChangeset(stack, session);
  return {
    [SHARED.session]: session,
    [SHARED.changeset]: changeset.id,
    [SHARED.changesetItem]: changeset.itemId,
    [SHARED.adminEntry]: (await adminInvite(stack)).id,
  };
}

function shared(ids: Ids, key: string): string {
  const id = ids[key];
  if (!id) throw new Error(`no shared fixture '${key}': sharedFixtureIds makes it`);
  return id;
}

/** What a route's fixture gives its sample request (infra/local/sample-event.ts, `SampleExtras`). */
export type RouteSample = Pick<SampleExtras, 'itemIds' | 'bodyFields' | 'token'>;

interface RouteFixture {
  /** The request uses up what it names, so each request gets its own. */
  perRequest: boolean;
  /** The route's sample, given the shared ids: its path ids by parameter name, and more if it needs it. */
  make(stack: Stack, sharedIds: Ids): Promise<RouteSample>;
}

const named = (itemIds: Ids): RouteSample => ({ itemIds });
const inSession = (ids: Ids) => named({ session_id: shared(ids, SHARED.session) });
const stagedIn = async (stack: Stack, ids: Ids) =>
  named({ changeset_id: (await stageChangeset(stack, shared(ids, SHARED.session))).id });
const askingConsent = async (stack: Stack) => named({ request_id: (await consentRequest(stack)).requestId });

/**
 * A webhook of the stack's agent key, to a loopback port nothing listens on (the local harness lets
 * webhooks reach loopback over http), and one delivery of it (its test ping, failed): made once per
 * stack, shared by the webhook routes that do not use it up.
 */
const sampleWebhookUrl = () => `http://127.0.0.1:9/bench-webhook`;

async function createSampleWebhook(stack: Stack): Promise<string> {
  const made = await expectData<{ id: string }>(
    'creating a webhook',
    201,
    send(stack, 'POST', '/api/v1/agent/webhooks', stack.credentials.agent_key, {
      url: sampleWebhookUrl(),
      description: 'Bench sample',
    }),
  );
  return made.id;
}

const sharedWebhook = oncePerStack(async (stack) => {
  const webhookId = await createSampleWebhook(stack);
  const ping = await expectData<{ id: string }>(
    'pinging a webhook',
    200,
    send(stack, 'POST', `/api/v1/agent/webhooks/${webhookId}/test`, stack.credentials.agent_key),
  );
  return { webhook_id: webhookId, delivery_id: ping.id };
});

/** Room for one more webhook of the stack's key (10 at most): every other one but the shared one goes. */
async function roomForWebhook(stack: Stack): Promise<RouteSample> {
  const { webhook_id } = await sharedWebhook(stack);
  const key = stack.credentials.agent_key;
  const listed = await expectData<{ id: string }[]>(
    'listing webhooks',
    200,
    send(stack, 'GET', '/api/v1/agent/webhooks', key),
  );
  for (const webhook of listed.filter((candidate) => candidate.id !== webhook_id)) {
    await send(stack, 'DELETE', `/api/v1/agent/webhooks/${webhook.id}`, key);
  }
  return { bodyFields: { url: sampleWebhookUrl() } };
}

const onSharedWebhook: RouteFixture = {
  perRequest: false,
  make: async (stack) => named({ webhook_id: (await sharedWebhook(stack)).webhook_id }),
};

/** By operation: the fixture its sample request names. */
export const ROUTE_FIXTURES: Readonly<Record<string, RouteFixture>> = {
  getEditSession: { perRequest: false, make: async (_stack, ids) => inSession(ids) },
  getEditSnapshot: { perRequest: false, make: async (_stack, ids) => inSession(ids) },
  getEditRecord: {
    perRequest: false,
    make: async (_stack, ids) =>
      named({ session_id: shared(ids, SHARED.session), entity: 'faq', record_id: shared(ids, 'faq_id') }),
  },
  stageChangeset: { perRequest: false, make: async (_stack, ids) => inSession(ids) },
  getChangeset: {
    perRequest: false,
    make: async (_stack, ids) => named({ changeset_id: shared(ids, SHARED.changeset) }),
  },
  tickChangesetItem: {
    perRequest: false,
    make: async (_stack, ids) =>
      named({ changeset_id: shared(ids, SHARED.changeset), item_id: shared(ids, SHARED.changesetItem) }),
  },
  applyChangeset: { perRequest: true, make: stagedIn },
  discardChangeset: { perRequest: true, make: stagedIn },
  revertChangeset: {
    perRequest: true,
    make: async (stack, ids) =>
      named({ changeset_id: await appliedChangeset(stack, shared(ids, SHARED.session)) }),
  },
  undoChange: { perRequest: true, make: async (stack) => named({ entry_id: await changeLogEntry(stack) }) },
  // A delete removes the schedule, so the read and the delete each find one put before them.
  getBlogAutoSchedule: { perRequest: true, make: async (stack) => named(await putBlogSchedule(stack)) },
  deleteBlogAutoSchedule: { perRequest: true, make: async (stack) => named(await putBlogSchedule(stack)) },
  updatePlatformAdminUser: {
    perRequest: false,
    make: async (_stack, ids) => named({ entry_id: shared(ids, SHARED.adminEntry) }),
  },
  removePlatformAdminUser: {
    perRequest: true,
    make: async (stack) => named({ entry_id: (await adminInvite(stack)).id }),
  },
  acceptPlatformAdminInvite: { perRequest: true, make: inviteToAccept },
  // Consent requests are short-lived, so each request gets one made just before it.
  getConsentRequest: { perRequest: true, make: askingConsent },
  approveConsentRequest: { perRequest: true, make: askingConsent },
  denyConsentRequest: { perRequest: true, make: askingConsent },
  issueOAuthToken: { perRequest: true, make: async (stack) => ({ bodyFields: await codeExchange(stack) }) },
  endOAuthGrant: { perRequest: true, make: async (stack) => named({ grant_id: await ownersGrant(stack) }) },
  createWebhook: { perRequest: true, make: roomForWebhook },
  getWebhook: onSharedWebhook,
  updateWebhook: onSharedWebhook,
  rotateWebhookSecret: onSharedWebhook,
  testWebhook: onSharedWebhook,
  listWebhookDeliveries: onSharedWebhook,
  retryWebhookDelivery: { perRequest: false, make: async (stack) => named(await sharedWebhook(stack)) },
  // A replay may reach back 30 days only: the last hour.
  replayWebhook: {
    perRequest: false,
    make: async (stack) => ({
      ...named({ webhook_id: (await sharedWebhook(stack)).webhook_id }),
      bodyFields: {
        from: new Date(Date.now() - 3_600_000).toISOString(),
        to: new Date().toISOString(),
      },
    }),
  },
  deleteWebhook: {
    perRequest: true,
    make: async (stack) => {
      await roomForWebhook(stack);
      return named({ webhook_id: await createSampleWebhook(stack) });
    },
  },
};
