import { type ItemKey, keys } from '#lib/db/keys.ts';
import {
  address,
  languages,
  openingHours,
  salary,
  socialLinks,
  storableNumber,
  fieldTypes as t,
  timezone,
} from '#lib/records/fields.ts';
import type * as zt from '#lib/validation/zod.ts';
import * as z from '#lib/validation/zod.ts';

export const ENTITY_NAMES = [
  'profile',
  'faq',
  'job_posting',
  'location',
  'package',
  'service_item',
  'service',
  'team_member',
] as const;
export type EntityName = (typeof ENTITY_NAMES)[number];

/** One writable field of a record. Optional fields are nullable; `null` clears them. */
export interface FieldSpec {
  /** Built on first use (lib/records/fields.ts); lib/records/schemas.ts calls it once per entity. */
  schema: () => zt.ZodType;
  required?: true;
  /** Value on create (and on a full replace) when the field is not sent. */
  default?: unknown;
  /** The field holds the id of another record of the same business (or of a live photo). */
  references?: EntityName | 'photo';
}

/** A membership list, e.g. a package's service items, set only through its own PUT. */
export interface MemberSpec {
  field: string;
  entity: EntityName;
  /** Path segment of the membership operations: /packages/{id}/service-items */
  segment: string;
  max: number;
}

/**
 * At most one record of an entity per business is its primary one: a boolean field marks it, and
 * a pointer item names it so that making another record primary clears the old one in the same
 * transaction. A write of such a record therefore reads the pointer together with the record and
 * is never planned from the record alone (a batched read or a preloaded record has no pointer).
 */
export interface PrimaryRule {
  /** The boolean field that marks the primary record. */
  field: string;
  /** The pointer item of a business. */
  pointer(businessId: string): ItemKey;
  /** The pointer item's attribute that holds the primary record's id. */
  pointerAttribute: string;
}

export interface EntityDefinition {
  name: EntityName;
  /** Path segment of the agent API collection; undefined for the profile (edits API only). */
  collection?: string;
  /** Name of the id path parameter in the agent API. */
  idParam?: string;
  /** How people call one of these, for operation summaries. */
  title: string;
  fields: Record<string, FieldSpec>;
  members?: MemberSpec;
  /** A small valid create body: OpenAPI example, sample events, demo data, tests. */
  example: Record<string, unknown>;
  /** At most one primary record per business, when set. */
  primary?: PrimaryRule;
  /** Rules across fields, checked on every complete record (after a merge patch too). */
  rules?: { path: string[]; message: string; holds(fields: Record<string, unknown>): boolean }[];
  /** The snapshot label: question, title, name, or first + last name. */
  label(record: Record<string, unknown>): string | null;
}

const text = (value: unknown) => (typeof value === 'string' ? value : null);
const byName = (record: Record<string, unknown>) => text(record.name);
const position = { schema: t.position };
const photoId = { schema: t.id, references: 'photo' } as const;
const price = { schema: t.price };
const MAX_MEMBERS = 40;

/** Packages and service items carry the same fields (their members differ). */
const catalogueFields: Record<string, FieldSpec> = {
  name: { schema: () => t.shortText(200), required: true },
  description: { schema: () => t.text(5000) },
  price,
  photo_id: photoId,
  position,
  is_active: { schema: t.boolean, default: true },
};

/**
 * What the types know of each entity, beyond EntityDefinition: whether the agent API reaches it
 * (it has a collection) and which entity its member list holds. The definitions below must agree
 * (the compiler holds them to it), and the agent API's operation ids are derived from it.
 */
interface EntityShapes {
  profile: { collection?: undefined; members?: undefined };
  faq: AgentReached;
  job_posting: AgentReached;
  location: AgentReached;
  package: AgentReached<'service_item'>;
  service_item: AgentReached<'service'>;
  service: AgentReached;
  team_member: AgentReached;
}
type AgentReached<Member extends EntityName | undefined = undefined> = {
  collection: string;
} & (Member extends EntityName ? { members: MemberSpec & { entity: Member } } : { members?: undefined });

export const entities: { [E in EntityName]: EntityDefinition & EntityShapes[E] } = {
  profile: {
    name: 'profile',
    title: 'business profile',
    example: { name: 'Harbor Bakery', tagline: 'Bread since 1921' },
    fields: {
      name: { schema: () => t.shortText(200), required: true },
      tagline: { schema: () => t.text(300) },
      description: { schema: () => t.text(5000) },
      phone: { schema: t.phone },
      email: { schema: t.email },
      website_url: { schema: t.url },
      industry_id: { schema: () => t.shortText(100) },
      logo_photo_id: photoId,
      cover_photo_id: photoId,
      social_links: { schema: socialLinks },
      languages: { schema: languages },
      founded_year: { schema: () => z.int().check(z.gte(1000), z.lte(2100)) },
    },
    label: byName,
  },
  faq: {
    name: 'faq',
    collection: 'faqs',
    idParam: 'faq_id',
    title: 'FAQ',
    example: { question: 'Do you deliver?', answer: 'Yes, within 10 km.' },
    fields: {
      question: { schema: () => t.shortText(500), required: true },
      answer: { schema: () => t.shortText(5000), required: true },
      position,
      is_published: { schema: t.boolean, default: true },
    },
    label: (record) => text(record.question),
  },
  job_posting: {
    name: 'job_posting',
    collection: 'job_postings',
    idParam: 'job_posting_id',
    title: 'job posting',
    example: { title: 'Baker', description: 'Early mornings, good bread.', employment_type: 'full_time' },
    fields: {
      title: { schema: () => t.shortText(200), required: true },
      description: { schema: () => t.shortText(10_000), required: true },
      employment_type: {
        schema: () => z.enum(['full_time', 'part_time', 'contract', 'temporary', 'internship', 'volunteer']),
      },
      location_id: { schema: t.id, references: 'location' },
      salary: { schema: salary },
      apply_url: { schema: t.url },
      apply_email: { schema: t.email },
      status: { schema: () => z.enum(['draft', 'open', 'closed']), default: 'draft' },
      closes_at: { schema: t.dateTime },
    },
    rules: [
      {
        path: ['salary', 'min'],
        message: 'salary.min must not exceed salary.max',
        holds: ({ salary }) => {
          const { min, max } = (salary ?? {}) as { min?: number | null; max?: number | null };
          return min == null || max == null || min <= max;
        },
      },
    ],
    label: (record) => text(record.title),
  },
  location: {
    name: 'location',
    collection: 'locations',
    idParam: 'location_id',
    title: 'location',
    example: { name: 'Main shop', address: { line1: 'Hafenstraße 1', city: 'Hamburg', country: 'DE' } },
    fields: {
      name: { schema: () => t.shortText(200), required: true },
      address: { schema: address },
      latitude: { schema: () => storableNumber(-90, 90) },
      longitude: { schema: () => storableNumber(-180, 180) },
      phone: { schema: t.phone },
      email: { schema: t.email },
      timezone: { schema: timezone },
      opening_hours: { schema: openingHours },
      is_primary: { schema: t.boolean, default: false },
    },
    primary: { field: 'is_primary', pointer: keys.primaryLocation, pointerAttribute: 'location_id' },
    label: byName,
  },
  package: {
    name: 'package',
    collection: 'packages',
    idParam: 'package_id',
    title: 'package',
    example: { name: 'Party pack', price: { amount_minor: 4900, currency: 'EUR' } },
    fields: catalogueFields,
    members: {
      field: 'service_item_ids',
      entity: 'service_item',
      segment: 'service-items',
      max: MAX_MEMBERS,
    },
    label: byName,
  },
  service_item: {
    name: 'service_item',
    collection: 'service-items',
    idParam: 'item_id',
    title: 'service item',
    example: { name: 'Birthday cake' },
    fields: catalogueFields,
    members: { field: 'service_ids', entity: 'service', segment: 'services', max: MAX_MEMBERS },
    label: byName,
  },
  service: {
    name: 'service',
    collection: 'services',
    idParam: 'service_id',
    title: 'service',
    example: { name: 'Catering', price_type: 'quote' },
    fields: {
      name: { schema: () => t.shortText(200), required: true },
      description: { schema: () => t.text(5000) },
      price,
      price_type: { schema: () => z.enum(['fixed', 'from', 'hourly', 'free', 'quote']) },
      duration_minutes: { schema: () => z.int().check(z.gte(1), z.lte(100_000)) },
      photo_id: photoId,
      position,
      is_active: { schema: t.boolean, default: true },
    },
    label: byName,
  },
  team_member: {
    name: 'team_member',
    collection: 'team_members',
    idParam: 'team_member_id',
    title: 'team member',
    example: { first_name: 'Ada', last_name: 'Lovelace', job_title: 'Head baker' },
    fields: {
      first_name: { schema: () => t.shortText(100), required: true },
      last_name: { schema: () => t.shortText(100) },
      job_title: { schema: () => t.shortText(200) },
      bio: { schema: () => t.text(5000) },
      email: { schema: t.email },
      phone: { schema: t.phone },
      photo_id: photoId,
      position,
      is_published: { schema: t.boolean, default: true },
    },
    label: (record) => [text(record.first_name), text(record.last_name)].filter(Boolean).join(' ') || null,
  },
};

/** The entities with an agent API collection (every one but the profile), as a type. */
export type AgentEntityName = {
  [E in EntityName]: EntityShapes[E] extends { collection: string } ? E : never;
}[EntityName];

/** The entity whose records an entity's member list holds; never when it has no members. */
export type MemberEntityOf<E extends EntityName> = EntityShapes[E] extends {
  members: { entity: infer Member extends EntityName };
}
  ? Member
  : never;

/** Entities with agent API collections, in the order of the spec's table. */
export const agentEntities = ENTITY_NAMES.map((name): EntityDefinition => entities[name]).filter(
  (definition): definition is EntityDefinition & { collection: string; idParam: string } =>
    definition.collection !== undefined,
);

/** Every (entity, field) that may hold a reference to records of `target`. */
export function referencesTo(target: EntityName): { entity: EntityName; field: string; list: boolean }[] {
  return ENTITY_NAMES.flatMap((name) => {
    const definition = entities[name];
    const single = Object.entries(definition.fields)
      .filter(([, spec]) => spec.references === target)
      .map(([field]) => ({ entity: name, field, list: false }));
    const members =
      definition.members?.entity === target
        ? [{ entity: name, field: definition.members.field, list: true }]
        : [];
    return [...single, ...members];
  });
}
