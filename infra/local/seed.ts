import { randomUUID } from 'node:crypto';
import { ensurePlatformAdmin } from '#lib/admins/admin-provisioning.ts';
import { createAgentKey } from '#lib/auth/agent-keys.ts';
import type { MemberRole } from '#lib/auth/business-access.ts';
import { createBusiness, putMember } from '#lib/businesses/business-store.ts';
import { addGalleryPhoto } from '#lib/media/gallery-writes.ts';
import { addPhoto, deletePhoto } from '#lib/media/photo-writes.ts';
import { agentEntities, type EntityName } from '#lib/records/entities.ts';
import { createRecord, patchRecord, setMembers } from '#lib/records/writes/record-writes.ts';
import { png, TINY_JPEG, TINY_WEBP } from './demo-images.ts';
import { localUserId } from './dev-issuer.ts';

/** What the seed created; kept in `.local/seed.json` so later starts can print credentials again. */
export interface SeedRecord {
  businesses: { id: string; name: string; members: Record<MemberRole, string> }[];
  platform_admin_email: string;
  agent_key: string;
  /** Ids of the first business's demo records and photos by path parameter name (docs examples). */
  demo_ids?: Record<string, string>;
}

const DEMO_BUSINESSES = [
  { name: 'Harbor Bakery', domain: 'harbor-bakery.example' },
  { name: 'Summit Plumbing', domain: 'summit-plumbing.example' },
];

/** A business (with its profile) and an owner, an editor and a viewer (e-mails on the business's own domain). */
export async function createDemoBusiness(
  name: string,
  domain: string,
): Promise<SeedRecord['businesses'][number]> {
  const members: Record<MemberRole, string> = {
    owner: `owner@${domain}`,
    editor: `editor@${domain}`,
    viewer: `viewer@${domain}`,
  };
  // The business comes with its profile, as the owner's.
  const business = await createBusiness({
    name,
    id: randomUUID(),
    createdBy: { type: 'user', id: localUserId(members.owner) },
  });
  for (const [role, email] of Object.entries(members) as [MemberRole, string][]) {
    await putMember(business.id, localUserId(email), role);
  }
  return { id: business.id, name: business.name, members };
}

/**
 * Demo data for `npm start`: two businesses in different tenants, each with an owner, an editor
 * and a viewer; a platform admin; an agent key limited to the first business; one record of each
 * kind in the first business.
 */
export async function seedDemoData(): Promise<SeedRecord> {
  const businesses = [];
  for (const { name, domain } of DEMO_BUSINESSES) businesses.push(await createDemoBusiness(name, domain));
  const platformAdminEmail = 'admin@platform.example';
  await ensurePlatformAdmin({ email: platformAdminEmail, firstName: 'Ada', lastName: 'Admin' });
  const firstBusiness = businesses[0];
  if (!firstBusiness) throw new Error('no demo business');
  const { key } = await createAgentKey({
    name: 'demo-agent',
    businesses: [firstBusiness.id],
    scopes: ['read', 'write'],
  });
  const photos = await seedDemoPhotos(firstBusiness.id);
  const recordIds = await seedDemoRecords(firstBusiness, localUserId(firstBusiness.members.owner), photos);
  await seedGallery();
  return {
    businesses,
    platform_admin_email: platformAdminEmail,
    agent_key: key,
    demo_ids: { ...recordIds, photo_id: photos.logo },
  };
}

/**
 * Photos of the first demo business, bytes in s3rver: a JPEG used as the profile logo, a PNG the
 * demo service uses, an unused WebP, a deleted PNG, and an external photo whose URL has expired
 * (its bytes answer 410).
 */
async function seedDemoPhotos(businessId: string): Promise<{ logo: string; service: string }> {
  const upload = (bytes: Buffer, contentType: string, size: number, altText: string) =>
    addPhoto({ businessId, bytes, contentType, width: size, height: size, altText, source: 'upload' });
  const logo = await upload(TINY_JPEG, 'image/jpeg', 1, 'Harbor Bakery logo');
  const service = await upload(
    png(24, 24, [0xc0, 0x8a, 0x4b]),
    'image/png',
    24,
    'Fresh loaves on the counter',
  );
  await upload(TINY_WEBP, 'image/webp', 1, 'The shop at night');
  const deleted = await upload(png(24, 24, [0x80, 0x80, 0x80]), 'image/png', 24, 'A blurry test shot');
  await deletePhoto(businessId, deleted.id);
  await addPhoto({
    businessId,
    contentType: 'image/jpeg',
    source: 'external',
    externalUrl: 'https://images.example/harbor-bakery/old-banner.jpg',
    externalExpiresAt: '2026-01-01T00:00:00.000Z',
    altText: 'An old banner, hosted elsewhere',
  });
  return { logo: logo.id, service: service.id };
}

/** A small industry gallery (bakery, plumbing) for the gallery operations. */
async function seedGallery(): Promise<void> {
  for (const [industryId, rgb] of [
    ['bakery', [0xe0, 0xc0, 0x90]],
    ['bakery', [0xa0, 0x60, 0x30]],
    ['plumbing', [0x30, 0x60, 0xa0]],
  ] as const) {
    await addGalleryPhoto({
      industryId,
      bytes: png(32, 24, [...rgb]),
      contentType: 'image/png',
      width: 32,
      height: 24,
    });
  }
}

/**
 * The business's profile (its logo) and one record of every other kind (its entity's
 * example), with memberships wired up.
 */
async function seedDemoRecords(
  business: { id: string; name: string },
  ownerId: string,
  photos: { logo: string; service: string },
): Promise<Record<string, string>> {
  const businessId = business.id;
  const options = { actor: { type: 'user' as const, id: ownerId } };
  // The profile came with the business; the owner gives it a tagline and the logo.
  await patchRecord(
    'profile',
    businessId,
    'profile',
    { tagline: 'Bread since 1921', logo_photo_id: photos.logo },
    options,
  );
  const created: Partial<Record<EntityName, string>> = {};
  const byParam: Record<string, string> = {};
  for (const definition of agentEntities) {
    const body =
      definition.name === 'location'
        ? { ...definition.example, is_primary: true }
        : definition.name === 'service'
          ? { ...definition.example, photo_id: photos.service }
          : definition.example;
    const id = (await createRecord(definition.name, businessId, body, options)).id;
    created[definition.name] = id;
    if (definition.idParam) byParam[definition.idParam] = id;
  }
  const { service, service_item, package: packageId } = created;
  if (service && service_item && packageId) {
    await setMembers('service_item', businessId, service_item, [service], options);
    await setMembers('package', businessId, packageId, [service_item], options);
  }
  return byParam;
}
