import { emailAddress, webUrl } from '#lib/validation/formats.ts';
import * as z from '#lib/validation/zod.ts';

/** Field types shared by several entities (DESIGN §5). */

const CURRENCY = z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as EUR');
const URL = webUrl();
const EMAIL = emailAddress();
const PHONE = z.string().regex(/^\+?[0-9 ().-]{3,32}$/, 'a phone number');
const ID = z.uuid();

/**
 * A number DynamoDB can store: it keeps magnitudes from 1e-130 to 1e126 only, so a value such
 * as 5e-324 would fail the write (a 500) instead of being refused as input (a 422).
 */
export const storableNumber = (min: number, max: number) =>
  z
    .number()
    .min(min)
    .max(max)
    .refine((value) => value === 0 || Math.abs(value) >= 1e-130, 'too close to zero to store; send 0');

export const fieldTypes = {
  shortText: (max = 200) => z.string().trim().min(1).max(max),
  text: (max: number) => z.string().max(max),
  url: URL,
  email: EMAIL,
  phone: PHONE,
  id: ID,
  position: z.int().min(0).max(1_000_000),
  boolean: z.boolean(),
  price: z.strictObject({
    amount_minor: z.int().min(0).max(1_000_000_000_00),
    currency: CURRENCY,
  }),
  currency: CURRENCY,
  dateTime: z.iso.datetime({ offset: true }),
};

export const DAYS = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday'] as const;
const TIME = z.string().regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'a time HH:MM');

export const openingHours = z.array(z.strictObject({ day: z.enum(DAYS), opens: TIME, closes: TIME })).max(50);

export const address = z.strictObject({
  line1: z.string().trim().min(1).max(200),
  line2: z.string().max(200).nullable().optional(),
  city: z.string().trim().min(1).max(100),
  region: z.string().max(100).nullable().optional(),
  postal_code: z.string().max(20).nullable().optional(),
  country: z.string().regex(/^[A-Z]{2}$/, 'an ISO 3166-1 alpha-2 code such as DE'),
});

/** min ≤ max is an entity rule (job_posting), because zod cannot make a refined object partial. */
export const salary = z.strictObject({
  min: storableNumber(0, 1e12).nullable().optional(),
  max: storableNumber(0, 1e12).nullable().optional(),
  currency: CURRENCY,
  period: z.enum(['hour', 'day', 'week', 'month', 'year']),
});

export const socialLinks = z.strictObject({
  facebook: URL.nullable().optional(),
  instagram: URL.nullable().optional(),
  x: URL.nullable().optional(),
  linkedin: URL.nullable().optional(),
  youtube: URL.nullable().optional(),
  tiktok: URL.nullable().optional(),
});

/** BCP 47 language tags, loosely: en, de-CH, zh-Hant-TW. */
export const languages = z
  .array(z.string().regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, 'a BCP 47 tag'))
  .max(50);

export const timezone = z.string().refine(
  (value) => {
    try {
      new Intl.DateTimeFormat('en', { timeZone: value });
      return value.includes('/') || value === 'UTC';
    } catch {
      return false;
    }
  },
  { message: 'an IANA time zone such as Europe/Berlin' },
);
