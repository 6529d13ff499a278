/**
 * Every key of the single table is built here and nowhere else.
 *
 * A business owns one partition (`BUSINESS#<id>`): its summary item, its members, its records
 * and its settings, so everything about one business is one Query. Items that are looked up
 * from the other side carry gsi1 keys (a user's memberships).
 */
export interface ItemKey {
  pk: string;
  sk: string;
}

export const businessPartition = (businessId: string) => `BUSINESS#${businessId}`;

/** The partition of one e-mail address's pending memberships (keys.pendingMember). */
export const pendingMembers = (email: string) => `PENDING_MEMBER#${normaliseEmail(email)}`;

export const PLATFORM_ADMINS = 'PLATFORM_ADMINS';
export const RECORD_PREFIX = 'RECORD#';
export const COUNT_PREFIX = 'COUNT#';
export const HISTORY_PREFIX = 'HISTORY#';
export const OUTBOX_PREFIX = 'OUTBOX#';
const EVENT_FEED = 'EVENTS';
/** Idempotency-Key records (lib/http/idempotency/response-store.ts): pk `IDEMPOTENCY#<hash>`, sk `IDEMPOTENCY`. */
export const IDEMPOTENCY = 'IDEMPOTENCY';
/** Sorts after every zero-padded position: records without a position come last. */
const POSITION_LAST = '~';

export const keys = {
  business: (businessId: string): ItemKey => ({ pk: businessPartition(businessId), sk: 'BUSINESS' }),
  member: (businessId: string, userId: string): ItemKey => ({
    pk: businessPartition(businessId),
    sk: `MEMBER#${userId}`,
  }),
  /** gsi1 keys of a membership item: list the businesses of one user. */
  memberByUser: (userId: string, businessId: string) => ({
    gsi1pk: `USER#${userId}`,
    gsi1sk: businessPartition(businessId),
  }),
  /**
   * A membership waiting for its person's account: an invitation to a business by e-mail, made
   * before the identity provider has a subject for them. All of one address's share a partition,
   * found by `pendingMembers`; confirming the sign-up turns them into memberships.
   */
  pendingMember: (email: string, businessId: string): ItemKey => ({
    pk: pendingMembers(email),
    sk: businessPartition(businessId),
  }),
  user: (userId: string): ItemKey => ({ pk: `USER#${userId}`, sk: 'USER' }),
  /** Platform admins and their invites live in one small partition, keyed by normalised e-mail. */
  platformAdmin: (email: string): ItemKey => ({ pk: PLATFORM_ADMINS, sk: `EMAIL#${normaliseEmail(email)}` }),
  /** Finds an admin or invite by its entry id (the id in /admin/users/{entry_id}). */
  platformAdminEntry: (entryId: string): ItemKey => ({ pk: PLATFORM_ADMINS, sk: `ENTRY#${entryId}` }),
  /** How many active platform admins there are; the last one cannot be demoted. */
  platformAdminCount: (): ItemKey => ({ pk: PLATFORM_ADMINS, sk: 'COUNT' }),
  agentKey: (keyHash: string): ItemKey => ({ pk: `AGENT_KEY#${keyHash}`, sk: 'AGENT_KEY' }),
  /** gsi1 keys of an agent key item: list all keys, find one by its public id. */
  agentKeyById: (keyId: string) => ({ gsi1pk: 'AGENT_KEYS', gsi1sk: `AGENT_KEY#${keyId}` }),
  blogAutoSchedule: (businessId: string): ItemKey => ({
    pk: businessPartition(businessId),
    sk: 'BLOG_AUTO_SCHEDULE',
  }),
  /** A business record (profile, FAQ, location, …); `RECORD#` prefixes them all for the snapshot Query. */
  record: (businessId: string, entity: string, recordId: string): ItemKey => ({
    pk: businessPartition(businessId),
    sk: `${RECORD_PREFIX}${entity}#${recordId}`,
  }),
  /** gsi1 keys of a record: one entity of one business, in list order (position, then created_at). */
  recordOrder: (
    businessId: string,
    entity: string,
    position: number | null,
    createdAt: string,
    recordId: string,
  ) => ({
    gsi1pk: `${businessPartition(businessId)}#${entity}`,
    gsi1sk: `${position === null ? POSITION_LAST : String(position).padStart(7, '0')}#${createdAt}#${recordId}`,
  }),
  /** How many records of one entity a business has (the 500 limit is enforced on it). */
  recordCount: (businessId: string, entity: string): ItemKey => ({
    pk: businessPartition(businessId),
    sk: `${COUNT_PREFIX}${entity}`,
  }),
  /** Which location is the primary one, so that making another primary can clear it atomically. */
  primaryLocation: (businessId: string): ItemKey => ({
    pk: businessPartition(businessId),
    sk: 'PRIMARY_LOCATION',
  }),
  /** A Change History entry; ids are UUID v7, so the sort key orders entries by time. */
  history: (businessId: string, entryId: string): ItemKey => ({
    pk: businessPartition(businessId),
    sk: `${HISTORY_PREFIX}${entryId}`,
  }),
  /** A changeset's header; its items share the partition (`ITEM#<index>`). */
  changeset: (changesetId: string): ItemKey => ({ pk: `CHANGESET#${changesetId}`, sk: 'CHANGESET' }),
  changesetItem: (changesetId: string, index: number): ItemKey => ({
    pk: `CHANGESET#${changesetId}`,
    sk: `ITEM#${String(index).padStart(3, '0')}`,
  }),
  /** gsi1 keys of a changeset header: a business's changesets, newest last. */
  changesetOrder: (businessId: string, createdAt: string, changesetId: string) => ({
    gsi1pk: `${businessPartition(businessId)}#CHANGESETS`,
    gsi1sk: `${createdAt}#${changesetId}`,
  }),
  /** An edit session; it expires (TTL) 24 h after opening. */
  editSession: (sessionId: string): ItemKey => ({ pk: `EDIT_SESSION#${sessionId}`, sk: 'SESSION' }),
  /** A registered OAuth client (dynamic registration or the CLI), or a cached metadata document. */
  oauthClient: (clientId: string): ItemKey => ({ pk: `OAUTH_CLIENT#${clientId}`, sk: 'CLIENT' }),
  /** gsi1 keys of a registered client: list them (the oauth-client CLI). */
  oauthClientListing: (createdAt: string, clientId: string) => ({
    gsi1pk: 'OAUTH_CLIENTS',
    gsi1sk: `${createdAt}#${clientId}`,
  }),
  /** One window of a per-key rate limit (lib/rate/fixed-window.ts): `name` says what is counted. */
  rateWindow: (name: string, key: string, window: number): ItemKey => ({
    pk: `RATE#${name}#${key}`,
    sk: `WINDOW#${window}`,
  }),
  /** A pending consent request (10 minutes). */
  oauthConsentRequest: (requestId: string): ItemKey => ({ pk: `OAUTH_REQUEST#${requestId}`, sk: 'REQUEST' }),
  /** An authorization code, by the SHA-256 of the code (the code itself is never stored). */
  oauthCode: (codeHash: string): ItemKey => ({ pk: `OAUTH_CODE#${codeHash}`, sk: 'CODE' }),
  /** A grant: what one consent gave one client; refresh tokens and access tokens hang off it. */
  oauthGrant: (grantId: string): ItemKey => ({ pk: `OAUTH_GRANT#${grantId}`, sk: 'GRANT' }),
  /** gsi1 keys of a grant: one user's connected assistants, oldest first. */
  oauthGrantOfUser: (userId: string, createdAt: string, grantId: string) => ({
    gsi1pk: `OAUTH_GRANTS#${userId}`,
    gsi1sk: `${createdAt}#${grantId}`,
  }),
  /** A client's grants, in the client's partition: revoking or blocking the client ends them all. */
  oauthClientGrant: (clientId: string, grantId: string): ItemKey => ({
    pk: `OAUTH_CLIENT#${clientId}`,
    sk: `GRANT#${grantId}`,
  }),
  /** That an operator blocked a metadata-document client (its URL is the client_id). */
  oauthClientBlock: (clientId: string): ItemKey => ({ pk: `OAUTH_CLIENT#${clientId}`, sk: 'BLOCKED' }),
  /** gsi1 keys of a block: every blocked URL (the oauth-client CLI's list). */
  oauthClientBlockListing: (blockedAt: string, clientId: string) => ({
    gsi1pk: 'OAUTH_CLIENT_BLOCKS',
    gsi1sk: `${blockedAt}#${clientId}`,
  }),
  /** The public keys of access tokens with their schedule (lib/oauth/published-keys.ts): one item. */
  oauthPublishedKeys: (): ItemKey => ({ pk: 'OAUTH_KEYS', sk: 'PUBLISHED' }),
  /** A refresh token, by its SHA-256. */
  oauthRefreshToken: (tokenHash: string): ItemKey => ({ pk: `OAUTH_REFRESH#${tokenHash}`, sk: 'REFRESH' }),
  /**
   * A grant of a user's, in the user's partition, written when the person approves (the grant's id
   * is chosen then, before its code is exchanged): ending every grant of a person reads these with
   * a consistent Query, approvals whose code is still unexchanged included.
   */
  userOAuthGrant: (userId: string, grantId: string): ItemKey => ({
    pk: `USER#${userId}`,
    sk: `OAUTH_GRANT#${grantId}`,
  }),
  /**
   * That the person with this e-mail address approved an assistant as this user: an operator ends
   * a person's grants by address, even once their account (and so their sign-in subject) is gone.
   */
  oauthUserOfEmail: (email: string, userId: string): ItemKey => ({
    pk: `OAUTH_EMAIL#${normaliseEmail(email)}`,
    sk: `USER#${userId}`,
  }),
  /** That a user approved a client for some scopes before (consented_before). */
  oauthConsent: (userId: string, clientId: string): ItemKey => ({
    pk: `USER#${userId}`,
    sk: `OAUTH_CONSENT#${clientId}`,
  }),
  /** A business's photo; the bytes are at S3 `businesses/<b>/photos/<id>`. */
  photo: (businessId: string, photoId: string): ItemKey => ({
    pk: businessPartition(businessId),
    sk: `PHOTO#${photoId}`,
  }),
  /** gsi1 keys of a photo: the business's photos as a change feed, by updated_at then id. */
  photoFeed: (businessId: string, updatedAt: string, photoId: string) => ({
    gsi1pk: `${businessPartition(businessId)}#PHOTOS`,
    gsi1sk: `${updatedAt}#${photoId}`,
  }),
  /**
   * Which business a photo id belongs to, with what its bytes answer reads (the bytes and usages
   * paths name only the photo; lib/media/owner-pointers.ts).
   */
  photoOwner: (photoId: string): ItemKey => ({ pk: `PHOTO#${photoId}`, sk: 'OWNER' }),
  /**
   * A record that references a photo, beside the photo's owner pointer: the photo's usages are
   * one Query of its partition. Written in the same transaction as the record.
   */
  photoUsage: (photoId: string, entity: string, recordId: string): ItemKey => ({
    pk: `PHOTO#${photoId}`,
    sk: `USAGE#${entity}#${recordId}`,
  }),
  /** How many live photos a business has; while > 0 it carries the sparse mediaBusiness keys. */
  livePhotoCount: (businessId: string): ItemKey => ({ pk: businessPartition(businessId), sk: 'LIVE_PHOTOS' }),
  /** gsi1 keys of a live-photo counter above 0: the businesses with photos, for backfills. */
  mediaBusiness: (businessId: string) => ({ gsi1pk: 'MEDIA_BUSINESSES', gsi1sk: businessId }),
  /** The photo an import with this idempotency key (hashed) made, so a retry returns it. */
  importIdempotency: (businessId: string, keyHash: string): ItemKey => ({
    pk: businessPartition(businessId),
    sk: `PHOTO_IMPORT#${keyHash}`,
  }),
  /**
   * The first answer to a request with an Idempotency-Key. Powertools' idempotency utility writes
   * it; `hash` is its SHA-256 of (operation, caller, path, key), so each key is its own partition.
   */
  idempotency: (hash: string): ItemKey => ({ pk: `${IDEMPOTENCY}#${hash}`, sk: IDEMPOTENCY }),
  /** An industry gallery photo; bytes at S3 `gallery/<industry_id>/<id>`. */
  galleryPhoto: (industryId: string, photoId: string): ItemKey => ({
    pk: `GALLERY#${industryId}`,
    sk: `PHOTO#${photoId}`,
  }),
  /** gsi1 keys of a gallery photo: every gallery photo by industry, and the photo by its id. */
  galleryListing: (industryId: string, photoId: string) => ({
    gsi1pk: 'GALLERY_PHOTOS',
    gsi1sk: `${industryId}#${photoId}`,
  }),
  /**
   * Which industry a gallery photo id belongs to, with what its bytes answer reads (the bytes path
   * names only the photo; lib/media/owner-pointers.ts).
   */
  galleryPhotoOwner: (photoId: string): ItemKey => ({ pk: `GALLERY_PHOTO#${photoId}`, sk: 'OWNER' }),
  /**
   * A change event waiting for the publisher (lib/events/outbox.ts), for a write that has no
   * Change History entry to carry it (photos, the blog schedule). Only its stream record is read.
   */
  eventOutbox: (businessId: string, entryId: string): ItemKey => ({
    pk: businessPartition(businessId),
    sk: `${OUTBOX_PREFIX}${entryId}`,
  }),
  /** The last feed position given out; positions are assigned in publication order (lib/events/publish.ts). */
  eventCounter: (): ItemKey => ({ pk: EVENT_FEED, sk: 'COUNTER' }),
  /** An event in the feed of every business (null) or of one, at its position. */
  eventFeed: (businessId: string | null, seq: number): ItemKey => ({
    pk: eventFeedPartition(businessId),
    sk: eventFeedSortKey(seq),
  }),
  /** That an event id has a feed position: publishing it again finds this and stops. */
  eventMarker: (eventId: string): ItemKey => ({ pk: `EVENT#${eventId}`, sk: 'EVENT' }),
  /** The last version of a record the feed has an event of, so that its events go in version order. */
  eventRecordState: (businessId: string, entity: string, recordId: string): ItemKey => ({
    pk: eventFeedPartition(businessId),
    sk: `STATE#${entity}#${recordId}`,
  }),
  /** A webhook subscription (lib/webhooks/store.ts); its delivery log shares its partition. */
  webhook: (webhookId: string): ItemKey => ({ pk: webhookPartition(webhookId), sk: 'WEBHOOK' }),
  /** gsi1 keys of a subscription: every subscription (delivery), or one agent key's (`KEY#<id>#`). */
  webhookIndex: (keyId: string, webhookId: string) => ({
    gsi1pk: WEBHOOKS,
    gsi1sk: `${webhookKeyPrefix(keyId)}${webhookId}`,
  }),
  /** How many subscriptions one agent key has: at most MAX_WEBHOOKS_PER_KEY. */
  webhookCount: (keyId: string): ItemKey => ({ pk: `WEBHOOKS_OF_KEY#${keyId}`, sk: 'COUNT' }),
  /** One delivery attempt (lib/webhooks/deliveries.ts): uuidv7 ids, so newest last. */
  webhookDelivery: (webhookId: string, deliveryId: string): ItemKey => ({
    pk: webhookPartition(webhookId),
    sk: `${WEBHOOK_DELIVERY_PREFIX}${deliveryId}`,
  }),
  /** A replay of a time range still to deliver (lib/webhooks/replays.ts). */
  webhookReplay: (webhookId: string, replayId: string): ItemKey => ({
    pk: webhookPartition(webhookId),
    sk: `${WEBHOOK_REPLAY_PREFIX}${replayId}`,
  }),
} as const;

/** The gsi1 partition holding every webhook subscription. */
export const WEBHOOKS = 'WEBHOOKS';
export const webhookPartition = (webhookId: string) => `WEBHOOK#${webhookId}`;
export const webhookKeyPrefix = (keyId: string) => `KEY#${keyId}#`;
export const WEBHOOK_DELIVERY_PREFIX = 'DELIVERY#';
export const WEBHOOK_REPLAY_PREFIX = 'REPLAY#';

/** The feed's partition: `EVENTS` for every business, `EVENTS#<business_id>` for one. */
export const eventFeedPartition = (businessId: string | null) =>
  businessId === null ? EVENT_FEED : `${EVENT_FEED}#${businessId}`;
export const EVENT_FEED_PREFIX = 'SEQ#';
/** Zero-padded so that the sort key orders positions as numbers. */
export const eventFeedSortKey = (seq: number) => `${EVENT_FEED_PREFIX}${String(seq).padStart(16, '0')}`;

export function normaliseEmail(email: string): string {
  return email.trim().toLowerCase();
}
