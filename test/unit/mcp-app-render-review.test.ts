import { describe, expect, it } from 'vitest';
import { ENTITY_NAMES, entities } from '#lib/records/entities.ts';
import {
  changeName,
  formatValue,
  humanize,
  type ReviewChangeset,
  type ReviewItem,
  renderReview,
} from '../../mcp-app/render-review.ts';

// The review view's markup as pure logic: what a person sees of each entity's fields, the one
// checkbox per change and its name, the outcomes, and that record text is never markup.

/** A value of each structured field's shape; any other field gets a text naming it. */
const STRUCTURED: Record<string, unknown> = {
  address: { line1: 'Hafenstraße 1', line2: null, city: 'Hamburg', country: 'DE' },
  salary: { min: 3000, max: 3600, currency: 'EUR', period: 'month' },
  price: { amount_minor: 4900, currency: 'EUR' },
  social_links: { instagram: 'https://instagram.com/bakery' },
  opening_hours: [
    { day: 'monday', opens: '08:00', closes: '12:00' },
    { day: 'tuesday', opens: '08:00', closes: '18:00' },
  ],
  languages: ['en', 'de'],
  service_ids: [],
  is_published: true,
  is_active: false,
  is_primary: true,
  position: 2,
  founded_year: 1921,
  latitude: 53.54,
  duration_minutes: 90,
};

const item = (overrides: Partial<ReviewItem>): ReviewItem => ({
  id: '11111111-1111-4111-8111-111111111111',
  entity: 'faq',
  action: 'update',
  record_id: '22222222-2222-4222-8222-222222222222',
  fields: null,
  before: null,
  ticked: true,
  status: 'staged',
  outcome: null,
  ...overrides,
});

const changeset = (items: ReviewItem[], status: ReviewChangeset['status'] = 'staged'): ReviewChangeset => ({
  id: '33333333-3333-4333-8333-333333333333',
  summary: 'Tidy the records',
  status,
  items,
});

const checkboxes = (html: string) => html.match(/<input[^>]*>/g) ?? [];
const labels = (html: string) => [...html.matchAll(/<label for="[^"]+">([^<]*)<\/label>/g)].map((m) => m[1]);
const terms = (html: string) => [...html.matchAll(/<dt>([^<]*)<\/dt>/g)].map((m) => m[1]);

describe('each entity, created with every one of its fields', () => {
  it.each(ENTITY_NAMES.filter((name) => name !== 'profile'))('%s', (name) => {
    const fieldNames = Object.keys(entities[name].fields);
    const fields = Object.fromEntries(
      fieldNames.map((field) => [field, STRUCTURED[field] ?? `the ${field}`]),
    );
    const html = renderReview({ changeset: changeset([item({ entity: name, action: 'create', fields })]) });

    expect(checkboxes(html)).toHaveLength(1);
    expect(checkboxes(html)[0]).toMatch(/type="checkbox"[^>]* checked/);
    expect(terms(html)).toEqual(fieldNames.map(humanize));
    const [label] = labels(html);
    expect(label).toMatch(/^Create /);
    for (const field of fieldNames) expect(label).toContain(humanize(field).toLowerCase());
    for (const field of fieldNames) {
      expect(html).toContain(formatValue(fields[field]).replaceAll('&', '&amp;').split('\n')[0] as string);
    }
    // A created record shows only new values.
    expect(html).not.toContain('value old');
  });

  it('profile (only ever updated): each field old and new', () => {
    const fieldNames = Object.keys(entities.profile.fields);
    const before = Object.fromEntries(fieldNames.map((field) => [field, null]));
    const fields = Object.fromEntries(
      fieldNames.map((field) => [field, STRUCTURED[field] ?? `new ${field}`]),
    );
    const html = renderReview({
      changeset: changeset([item({ entity: 'profile', record_id: 'profile', fields, before })]),
    });

    expect(terms(html)).toEqual(fieldNames.map(humanize));
    expect(html.match(/class="value old empty"/g)).toHaveLength(fieldNames.length);
    expect(html.match(/class="value new"/g)).toHaveLength(fieldNames.length);
    expect(labels(html)[0]).toBe(
      `Update Profile “new name”: ${fieldNames.map((f) => humanize(f).toLowerCase()).join(', ')}`,
    );
  });
});

describe('values a person reads', () => {
  it.each([
    [null, '(empty)'],
    ['', '(empty)'],
    [true, 'yes'],
    [false, 'no'],
    [1921, '1921'],
    [['en', 'de'], 'en, de'],
    [[], '(none)'],
    [{ line1: 'Hafenstraße 1', line2: null, city: 'Hamburg' }, 'Line1: Hafenstraße 1, City: Hamburg'],
    [
      [
        { day: 'monday', opens: '08:00', closes: '12:00' },
        { day: 'friday', opens: '09:00', closes: '17:00' },
      ],
      'Day: monday, Opens: 08:00, Closes: 12:00\nDay: friday, Opens: 09:00, Closes: 17:00',
    ],
  ])('%j → %s', (value, text) => {
    expect(formatValue(value)).toBe(text);
  });

  it('shows long text as a word diff: removed words struck, added words marked', () => {
    const old =
      'We deliver within 10 km of the shop on weekdays, and on Saturdays until noon, to any address.';
    const next =
      'We deliver within 15 km of the shop on weekdays, and on Saturdays until noon, to any address.';
    const html = renderReview({
      changeset: changeset([item({ fields: { answer: next }, before: { answer: old } })]),
    });

    expect(html).toMatch(/<del>.*10.*<\/del>/);
    expect(html).toMatch(/<ins>.*15.*<\/ins>/);
    expect(html).not.toContain('value old');
  });

  it('shows short text as old and new', () => {
    const html = renderReview({
      changeset: changeset([item({ fields: { question: 'Parking?' }, before: { question: 'Car park?' } })]),
    });
    expect(html).toMatch(/class="value old".*Car park\?.*class="value new".*Parking\?/);
  });

  it('never lets record text become markup', () => {
    const html = renderReview({
      changeset: changeset([
        item({
          action: 'create',
          fields: { question: '<img src=x onerror=alert(1)>', answer: '"quoted" & <b>' },
        }),
      ]),
    });
    expect(html).not.toContain('<img');
    expect(html).not.toContain('<b>');
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('&quot;quoted&quot; &amp; &lt;b&gt;');
  });
});

describe('changes and their outcomes', () => {
  const two = [
    item({ id: 'a', fields: { answer: 'Yes.' }, before: { answer: 'No.', question: 'Sundays?' } }),
    item({
      id: 'b',
      record_id: 'r2',
      entity: 'team_member',
      action: 'delete',
      before: { first_name: 'Ada', last_name: 'Lovelace' },
    }),
  ];

  it('names each checkbox for the action, the record and its fields', () => {
    expect(changeName(two[0] as ReviewItem)).toBe('Update FAQ “Sundays?”: answer');
    expect(changeName(two[1] as ReviewItem)).toBe('Delete Team member “Ada Lovelace”');
    expect(changeName(item({ fields: { answer: 'x' } }))).toBe('Update FAQ 22222222: answer');
  });

  it('offers Apply while staged, with a checkbox per change and no other', () => {
    const html = renderReview({ changeset: changeset(two) });
    expect(checkboxes(html)).toHaveLength(2);
    expect(html).toMatch(/<button type="button" id="review-action" data-action="apply">Apply<\/button>/);
    expect(html).not.toContain('Revert');
  });

  it('after applying: outcomes, a conflict with its reason and current values, disabled checkboxes, Revert', () => {
    const html = renderReview({
      changeset: changeset(
        [
          item({ id: 'a', status: 'applied', fields: { answer: 'Yes.' }, before: { answer: 'No.' } }),
          item({
            id: 'b',
            status: 'conflict',
            fields: { question: 'New?' },
            before: { question: 'Old?' },
            outcome: {
              reason: 'fields moved since staging',
              fields: [{ field: 'question', staged_before: 'Old?', current: 'Moved?' }],
            },
          }),
          item({
            id: 'c',
            status: 'skipped',
            ticked: false,
            fields: { answer: 'x' },
            before: { answer: 'y' },
          }),
        ],
        'applied',
      ),
    });

    expect(html).toContain('>Applied</span>');
    expect(html).toContain('>Conflict: fields moved since staging (question is now Moved?)</span>');
    expect(html).toContain('>Skipped: left out</span>');
    for (const box of checkboxes(html)) expect(box).toContain(' disabled');
    expect(html).toMatch(/id="review-action" data-action="revert">Revert</);
  });

  it('shows a refusal as an alert and disables the controls while a call is under way', () => {
    const html = renderReview({ changeset: changeset(two), error: 'The session is closed.', busy: true });
    expect(html).toContain('<p class="error" role="alert">The session is closed.</p>');
    expect(html).toMatch(/data-action="apply" disabled/);
    for (const box of checkboxes(html)) expect(box).toContain(' disabled');
  });
});
