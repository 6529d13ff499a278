import { describe, expect, it } from 'vitest';
import { signingSecrets, type WebhookSubscription, wants, webhookView } from '#lib/webhooks/subscription.ts';

const subscription: WebhookSubscription = {
  webhook_id: '0196f0c2-7b1e-7c3a-9d42-3f1a2b4c5d6e',
  key_id: 'key-1',
  businesses: ['8d0f0000-0000-4000-8000-000000000001'],
  url: 'https://example.com/hook',
  types: null,
  description: null,
  enabled: true,
  secrets: [
    { secret: 'whsec_new', created_at: '2026-11-29T00:00:00.000Z' },
    { secret: 'whsec_old', created_at: '2026-11-01T00:00:00.000Z', expires_at: '2026-11-30T00:00:00.000Z' },
  ],
  created_at: '2026-11-01T00:00:00.000Z',
  updated_at: '2026-11-29T00:00:00.000Z',
  cursor_seq: 7,
  failures: 0,
  wake: 0,
};

describe('which events a subscription wants', () => {
  it("takes its key's businesses, whatever the id's case, and every type without types", () => {
    expect(
      wants(subscription, { business_id: '8D0F0000-0000-4000-8000-000000000001', type: 'photo.added' }),
    ).toBe(true);
    expect(
      wants(subscription, { business_id: '8d0f0000-0000-4000-8000-000000000002', type: 'photo.added' }),
    ).toBe(false);
  });

  it('takes every business for a * key, narrowed by types', () => {
    const all = { ...subscription, businesses: '*' as const, types: ['record.deleted' as const] };
    expect(wants(all, { business_id: 'anything', type: 'record.deleted' })).toBe(true);
    expect(wants(all, { business_id: 'anything', type: 'record.updated' })).toBe(false);
  });
});

describe('the secrets that sign', () => {
  it('are the current one and a rotated one until its overlap ends', () => {
    expect(signingSecrets(subscription, new Date('2026-11-29T12:00:00Z'))).toEqual([
      'whsec_new',
      'whsec_old',
    ]);
    expect(signingSecrets(subscription, new Date('2026-11-30T00:00:00Z'))).toEqual(['whsec_new']);
  });
});

describe('what the API shows', () => {
  it('never a secret, the key or the delivery state behind the status', () => {
    const view = webhookView({ ...subscription, failures: 2, failing_since: '2026-11-28T00:00:00.000Z' });
    expect(JSON.stringify(view)).not.toContain('whsec_');
    expect(view).not.toHaveProperty('key_id');
    expect(view).not.toHaveProperty('cursor_seq');
    expect(view).toMatchObject({
      id: subscription.webhook_id,
      status: 'failing',
      failing_since: '2026-11-28T00:00:00.000Z',
    });
    expect(webhookView({ ...subscription, enabled: false, disabled_reason: 'gone' })).toMatchObject({
      status: 'disabled',
      disabled_reason: 'gone',
    });
  });
});
