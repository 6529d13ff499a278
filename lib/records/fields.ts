import { emailAddress, webUrl } from '#lib/validation/formats.ts';
import { once } from '#lib/validation/lazy.ts';
import * as z from '#lib/validation/zod.ts';

/**
 * Field types shared by several entities. Each is a memoised thunk, built on first
 * use: a function builds the schemas of the entity it validates, not those of all eight.
 */

const CURRENCY = once(() => z.string().check(z.regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as EUR')));
const URL = once(() => webUrl());
const EMAIL = once(() => emailAddress());
const PHONE = once(() => z.string().check(z.regex(/^\+?[0-9 ().-]{3,32}$/, 'a phone number')));
const ID = once(() => z.uuid());

/**
 * A number DynamoDB can store: it keeps magnitudes from 1e-130 to 1e126 only, so a value such
 * as 5e-324 would fail the write (a 500) instead of being refused as input (a 422).
 */
export const storableNumber = (min: number, max: number) =>
  z.number().check(
    z.gte(min),
    z.lte(max),
    z.refine((value) => value === 0 || Math.abs(value) >= 1e-130, 'too close to zero to store; send 0'),
  );

export const fieldTypes = {
  shortText: (max = 200) => z.string().check(z.trim(), z.minLength(1), z.maxLength(max)),
  text: (max: number) => z.string().check(z.maxLength(max)),
  url: URL,
  email: EMAIL,
  phone: PHONE,
  id: ID,
  position: once(() => z.int().check(z.gte(0), z.lte(1_000_000))),
  boolean: once(() => z.boolean()),
  price: once(() =>
    z.strictObject({
      amount_minor: z.int().check(z.gte(0), z.lte(1_000_000_000_00)),
      currency: CURRENCY(),
    }),
  ),
  currency: CURRENCY,
  dateTime: once(() => z.iso.datetime({ offset: true })),
};

export const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
const TIME = once(() => z.string().check(z.regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'a time HH:MM')));

export const openingHours = once(() =>
  z.array(z.strictObject({ day: z.enum(DAYS), opens: TIME(), closes: TIME() })).check(z.maxLength(50)),
);

export const address = once(() =>
  z.strictObject({
    line1: z.string().check(z.trim(), z.minLength(1), z.maxLength(200)),
    line2: z.optional(z.nullable(z.string().check(z.maxLength(200)))),
    city: z.string().check(z.trim(), z.minLength(1), z.maxLength(100)),
    region: z.optional(z.nullable(z.string().check(z.maxLength(100)))),
    postal_code: z.optional(z.nullable(z.string().check(z.maxLength(20)))),
    country: z.string().check(z.regex(/^[A-Z]{2}$/, 'an ISO 3166-1 alpha-2 code such as DE')),
  }),
);

/** min ≤ max is an entity rule (job_posting), because zod cannot make a refined object partial. */
export const salary = once(() =>
  z.strictObject({
    min: z.optional(z.nullable(storableNumber(0, 1e12))),
    max: z.optional(z.nullable(storableNumber(0, 1e12))),
    currency: CURRENCY(),
    period: z.enum(['hour', 'day', 'week', 'month', 'year']),
  }),
);

export const socialLinks = once(() =>
  z.strictObject({
    facebook: z.optional(z.nullable(URL())),
    instagram: z.optional(z.nullable(URL())),
    x: z.optional(z.nullable(URL())),
    linkedin: z.optional(z.nullable(URL())),
    youtube: z.optional(z.nullable(URL())),
    tiktok: z.optional(z.nullable(URL())),
  }),
);

/** BCP 47 language tags, loosely: en, de-CH, zh-Hant-TW. */
export const languages = once(() =>
  z
    .array(z.string().check(z.regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'a BCP 47 tag')))
    .check(z.maxLength(50)),
);

export const timezone = once(() =>
  z.string().check(z.refine(isTimeZone, { message: 'an IANA time zone such as Europe/Berlin' })),
);

/** The runtime's canonical IANA zone names, looked up once. */
const canonicalZones = once(() => new Set(Intl.supportedValuesOf('timeZone')));

/**
 * An IANA zone the runtime knows, with a `/` (Europe/Berlin), or UTC. A canonical name is found in
 * the runtime's list (2–6 ms to load at a cold start); only another name, an alias such as
 * US/Pacific, is tried with a formatter, whose first zone costs 17–25 ms (bench/history.md).
 */
export function isTimeZone(value: string): boolean {
  if (!value.includes('/') && value !== 'UTC') return false;
  if (canonicalZones().has(value)) return true;
  try {
    new Intl.DateTimeFormat('en', { timeZone: value });
    return true;
  } catch {
    return false;
  }
}
