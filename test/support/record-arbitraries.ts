import fc from 'fast-check';
import type { EntityName } from '#lib/records/entities.ts';
import { entities } from '#lib/records/entities.ts';

/** Text without surrounding white space (short texts are trimmed on write, so they round-trip). */
const text = (maxLength: number) =>
  fc
    .string({ minLength: 1, maxLength })
    .map((value) => value.trim())
    .filter((value) => value.length > 0);

const hhmm = fc
  .tuple(fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }))
  .map(([h, m]) => `${String(h).padStart(2, '0')}:${String(m).padStart(2, '0')}`);
const url = fc.stringMatching(/^https:\/\/[a-z]{1,12}\.example\/[a-z0-9]{0,12}$/);
const email = fc.stringMatching(/^[a-z]{1,10}@[a-z]{1,10}\.(com|de|org)$/);
const currency = fc.constantFrom('EUR', 'USD', 'GBP', 'CHF');
/** Plain doubles, except those too close to zero for DynamoDB (the service refuses those: 422). */
const degrees = (limit: number) =>
  fc
    .double({ min: -limit, max: limit, noNaN: true })
    .map((value) => value + 0)
    .filter((value) => value === 0 || Math.abs(value) >= 1e-130);

/** A valid value for every field name used by the agent entities (references excluded). */
const valid: Record<string, fc.Arbitrary<unknown>> = {
  question: text(500),
  answer: text(2000),
  title: text(200),
  name: text(200),
  first_name: text(100),
  last_name: text(100),
  job_title: text(200),
  // Required (and non-empty) on job postings; optional elsewhere, where non-empty is valid too.
  description: text(2000),
  bio: fc.string({ maxLength: 2000 }),
  position: fc.integer({ min: 0, max: 1_000_000 }),
  is_published: fc.boolean(),
  is_active: fc.boolean(),
  is_primary: fc.boolean(),
  email,
  apply_email: email,
  phone: fc.stringMatching(/^\+[1-9][0-9]{6,12}$/),
  apply_url: url,
  price: fc.record({ amount_minor: fc.integer({ min: 0, max: 10_000_000 }), currency }),
  price_type: fc.constantFrom('fixed', 'from', 'hourly', 'free', 'quote'),
  duration_minutes: fc.integer({ min: 1, max: 100_000 }),
  employment_type: fc.constantFrom(
    'full_time',
    'part_time',
    'contract',
    'temporary',
    'internship',
    'volunteer',
  ),
  status: fc.constantFrom('draft', 'open', 'closed'),
  closes_at: fc
    .date({ min: new Date('2020-01-01'), max: new Date('2100-01-01'), noInvalidDate: true })
    .map((d) => d.toISOString()),
  salary: fc
    .tuple(
      fc.integer({ min: 0, max: 100_000 }),
      fc.integer({ min: 0, max: 100_000 }),
      currency,
      fc.constantFrom('hour', 'month', 'year'),
    )
    .map(([a, b, c, period]) => ({ min: Math.min(a, b), max: Math.max(a, b), currency: c, period })),
  address: fc.record(
    {
      line1: text(100),
      line2: text(100),
      city: text(50),
      region: text(50),
      postal_code: fc.stringMatching(/^[0-9]{5}$/),
      country: fc.constantFrom('DE', 'US', 'FR'),
    },
    { requiredKeys: ['line1', 'city', 'country'] },
  ),
  latitude: degrees(90),
  longitude: degrees(180),
  timezone: fc.constantFrom('Europe/Berlin', 'America/New_York', 'UTC', 'Asia/Tokyo'),
  tagline: fc.string({ maxLength: 300 }),
  website_url: url,
  industry_id: text(100),
  social_links: fc.record(
    { facebook: url, instagram: url, x: url, linkedin: url, youtube: url, tiktok: url },
    { requiredKeys: [] },
  ),
  languages: fc.array(fc.constantFrom('en', 'de-CH', 'zh-Hant-TW'), { maxLength: 3 }),
  founded_year: fc.integer({ min: 1000, max: 2100 }),
  opening_hours: fc.array(
    fc.record({ day: fc.constantFrom('monday', 'tuesday', 'sunday'), opens: hhmm, closes: hhmm }),
    { maxLength: 5 },
  ),
};

/** Valid create bodies of one kind: every required field, any subset of the others. */
export function validBody(entity: EntityName): fc.Arbitrary<Record<string, unknown>> {
  const fields = Object.entries(entities[entity].fields).filter(([, spec]) => !spec.references);
  const model = Object.fromEntries(
    fields.map(([field]) => {
      const arbitrary = valid[field];
      if (!arbitrary) throw new Error(`no arbitrary for ${entity}.${field}`);
      return [field, arbitrary];
    }),
  );
  return fc.record(model, {
    requiredKeys: fields.filter(([, spec]) => spec.required).map(([field]) => field),
  });
}

/** A value of another JSON type than `value`, so that it cannot be valid where `value` was. */
function wrongType(value: unknown): fc.Arbitrary<unknown> {
  if (typeof value === 'string')
    return fc.oneof(fc.integer(), fc.boolean(), fc.array(fc.string(), { maxLength: 2 }));
  if (typeof value === 'number') return fc.oneof(fc.string(), fc.boolean(), fc.constant({}));
  if (typeof value === 'boolean')
    return fc.oneof(fc.constantFrom('true', 'false', 'yes'), fc.integer({ min: 0, max: 1 }));
  if (Array.isArray(value)) return fc.oneof(fc.string(), fc.integer(), fc.constant({}));
  return fc.oneof(fc.string(), fc.integer(), fc.array(fc.integer(), { maxLength: 2 }));
}

/** Bodies that are invalid for a known reason: a field of the wrong type, an unknown field, or a required one missing. */
export function invalidBody(entity: EntityName): fc.Arbitrary<Record<string, unknown>> {
  const fieldNames = Object.keys(entities[entity].fields);
  const required = Object.entries(entities[entity].fields)
    .filter(([, spec]) => spec.required)
    .map(([field]) => field);
  return validBody(entity).chain((body) => {
    const present = Object.keys(body);
    return fc.oneof(
      fc
        .constantFrom(...present)
        .chain((field) => wrongType(body[field]).map((value) => ({ ...body, [field]: value }))),
      fc
        .string({ minLength: 1, maxLength: 20 })
        .filter((key) => !fieldNames.includes(key) && key !== '__proto__')
        .chain((key) => fc.jsonValue().map((value) => ({ ...body, [key]: value }))),
      fc.constantFrom(...required).map((field) => {
        const { [field]: _dropped, ...rest } = body;
        return rest;
      }),
    );
  });
}
