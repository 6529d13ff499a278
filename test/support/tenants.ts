import { randomUUID } from 'node:crypto';
import { inject } from 'vitest';
import { createDemoBusiness } from '../../infra/local/seed.ts';
import { issuer } from './tokens.ts';

export interface Tenant {
  businessId: string;
  tokens: { owner: string; editor: string; viewer: string };
  emails: { owner: string; editor: string; viewer: string };
}

/** A fresh business of its own with an owner, an editor and a viewer, so tests never share data. */
export async function arrangeTenant(): Promise<Tenant> {
  const suffix = randomUUID().slice(0, 8);
  const business = await createDemoBusiness(`Test business ${suffix}`, `t-${suffix}.example`);
  const dev = await issuer();
  return {
    businessId: business.id,
    emails: business.members,
    tokens: {
      owner: await dev.mintToken({ email: business.members.owner }),
      editor: await dev.mintToken({ email: business.members.editor }),
      viewer: await dev.mintToken({ email: business.members.viewer }),
    },
  };
}

/** The seeded platform admin's token. */
export const platformAdminToken = () => inject('harness').credentials.platform_admin_token;
