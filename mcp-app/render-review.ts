import { diffWords } from 'diff';

/**
 * The changeset review view's markup, as pure logic: from the changeset (a propose_changes or
 * get_changeset result, or an apply_changes or revert_changes outcome) and the view's own state
 * to one HTML string. Records are grouped; each change has one native checkbox named for its
 * entity and fields; each field shows its old and new value (a word diff for long text). Every
 * value from the service is escaped: record text is written by people and assistants.
 */
export interface ReviewItem {
  id: string;
  entity: string;
  action: 'create' | 'update' | 'delete';
  record_id: string;
  fields: Record<string, unknown> | null;
  before: Record<string, unknown> | null;
  ticked: boolean;
  status: 'staged' | 'applied' | 'conflict' | 'skipped' | 'reverted' | 'revert_conflict';
  outcome: Record<string, unknown> | null;
}

export interface ReviewChangeset {
  id: string;
  summary: string | null;
  status: 'staged' | 'applied' | 'reverted' | 'discarded';
  items: ReviewItem[];
}

export interface ReviewState {
  changeset?: ReviewChangeset | undefined;
  /** A refusal or failure to show the person, in words. */
  error?: string | undefined;
  /** A call through the host is under way: controls wait for it. */
  busy?: boolean;
}

/** The id of the Apply / Revert button, shared so that keyboard focus carries from one to the other. */
export const ACTION_BUTTON_ID = 'review-action';
export const tickId = (itemId: string) => `tick-${itemId}`;

const ENTITY_LABELS: Record<string, string> = {
  profile: 'Profile',
  faq: 'FAQ',
  job_posting: 'Job posting',
  location: 'Location',
  service: 'Service',
  service_item: 'Service item',
  package: 'Package',
  team_member: 'Team member',
};

/** Text at least this long (or on several lines) is shown as a word diff rather than old and new. */
const LONG_TEXT = 80;

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (char) => ESCAPES[char] as string);

const entityLabel = (entity: string) => ENTITY_LABELS[entity] ?? humanize(entity);

/** `opening_hours` → `Opening hours`. */
export const humanize = (name: string) => {
  const words = name.replace(/_/g, ' ');
  return words.charAt(0).toUpperCase() + words.slice(1);
};

/** What a person calls the record: its question, title or name, else the start of its id. */
export function recordLabel(item: ReviewItem): string {
  const values = { ...item.before, ...item.fields };
  const named = [values.question, values.title, values.name].find((v) => typeof v === 'string' && v !== '');
  if (typeof named === 'string') return `${entityLabel(item.entity)} “${named}”`;
  const person = [values.first_name, values.last_name].filter((v) => typeof v === 'string' && v !== '');
  if (person.length > 0) return `${entityLabel(item.entity)} “${person.join(' ')}”`;
  if (item.entity === 'profile') return 'Profile';
  return item.action === 'create'
    ? `New ${entityLabel(item.entity)}`
    : `${entityLabel(item.entity)} ${item.record_id.slice(0, 8)}`;
}

/** The fields a change touches: what it writes, or for a delete what the record held. */
export const changedFields = (item: ReviewItem) => Object.keys(item.fields ?? item.before ?? {});

const ACTION_VERBS = { create: 'Create', update: 'Update', delete: 'Delete' } as const;

/** The checkbox's accessible name: the action, the entity (and which record), and the fields. */
export function changeName(item: ReviewItem): string {
  const fields =
    item.action === 'delete' ? [] : changedFields(item).map((name) => humanize(name).toLowerCase());
  return `${ACTION_VERBS[item.action]} ${recordLabel(item)}${fields.length ? `: ${fields.join(', ')}` : ''}`;
}

/** A field's value as text a person reads. */
export function formatValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '(empty)';
  if (typeof value === 'boolean') return value ? 'yes' : 'no';
  if (typeof value === 'string' || typeof value === 'number') return String(value);
  if (Array.isArray(value)) {
    if (value.length === 0) return '(none)';
    const simple = value.every((entry) => typeof entry !== 'object' || entry === null);
    return value.map(formatValue).join(simple ? ', ' : '\n');
  }
  return Object.entries(value as Record<string, unknown>)
    .filter(([, entry]) => entry !== null && entry !== undefined)
    .map(([key, entry]) => `${humanize(key)}: ${formatValue(entry)}`)
    .join(', ');
}

const isLongText = (old: unknown, next: unknown) =>
  typeof old === 'string' &&
  typeof next === 'string' &&
  [old, next].some((text) => text.length >= LONG_TEXT || text.includes('\n'));

/** Old and new text as one passage: removed words struck through, added words marked. */
export function renderTextDiff(old: string, next: string): string {
  return diffWords(old, next)
    .map((part) => {
      const text = escapeHtml(part.value);
      if (part.removed)
        return `<del><span class="visually-hidden">[removed: </span>${text}<span class="visually-hidden">]</span></del>`;
      if (part.added)
        return `<ins><span class="visually-hidden">[added: </span>${text}<span class="visually-hidden">]</span></ins>`;
      return text;
    })
    .join('');
}

const valueBlock = (kind: 'old' | 'new', value: unknown) => {
  const text = formatValue(value);
  const empty = text === '(empty)' || text === '(none)' ? ' empty' : '';
  return `<div class="value ${kind}${empty}"><span class="value-kind">${kind === 'old' ? 'Old' : 'New'}</span> <span class="value-text">${escapeHtml(text)}</span></div>`;
};

function renderField(item: ReviewItem, name: string): string {
  const old = item.before?.[name];
  const next = item.fields?.[name];
  let body: string;
  if (item.action === 'create') body = valueBlock('new', next);
  else if (item.action === 'delete') body = valueBlock('old', old);
  else if (isLongText(old, next))
    body = `<div class="value diff"><span class="value-kind">Changes</span> <span class="value-text">${renderTextDiff(old as string, next as string)}</span></div>`;
  else body = valueBlock('old', old) + valueBlock('new', next);
  return `<div class="field"><dt>${escapeHtml(humanize(name))}</dt><dd>${body}</dd></div>`;
}

/** What became of a change, in words (nothing while it waits, ticked, to be applied). */
export function outcomeText(item: ReviewItem): string {
  const reason = typeof item.outcome?.reason === 'string' ? item.outcome.reason : undefined;
  // Moved fields are `{field, current, …}`: say what each holds now.
  const fields = Array.isArray(item.outcome?.fields)
    ? (item.outcome.fields as { field?: unknown; current?: unknown }[]).map(
        (moved) => `${humanize(String(moved?.field)).toLowerCase()} is now ${formatValue(moved?.current)}`,
      )
    : [];
  const why = reason ? `: ${reason}${fields.length ? ` (${fields.join('; ')})` : ''}` : '';
  switch (item.status) {
    case 'staged':
      return item.ticked ? '' : 'Left out';
    case 'applied':
      return 'Applied';
    case 'conflict':
      return `Conflict${why}`;
    case 'skipped':
      return 'Skipped: left out';
    case 'reverted':
      return 'Reverted';
    case 'revert_conflict':
      return `Not reverted${why}`;
  }
}

function renderChange(item: ReviewItem, reviewing: boolean, busy: boolean): string {
  const id = tickId(item.id);
  const disabled = !reviewing || busy ? ' disabled' : '';
  const outcome = outcomeText(item);
  const fields = changedFields(item);
  return [
    `<article class="change" data-status="${escapeHtml(item.status)}" data-ticked="${item.ticked}">`,
    '<div class="change-head">',
    `<input type="checkbox" id="${escapeHtml(id)}" data-item-id="${escapeHtml(item.id)}"${item.ticked ? ' checked' : ''}${disabled}>`,
    `<label for="${escapeHtml(id)}">${escapeHtml(changeName(item))}</label>`,
    outcome
      ? `<span class="outcome" data-status="${escapeHtml(item.status)}">${escapeHtml(outcome)}</span>`
      : '',
    '</div>',
    fields.length ? `<dl class="fields">${fields.map((name) => renderField(item, name)).join('')}</dl>` : '',
    '</article>',
  ].join('');
}

const CHANGESET_STATUS: Record<ReviewChangeset['status'], string> = {
  staged: 'Nothing has changed yet: untick what you do not want, then Apply.',
  applied: 'Applied. Revert takes back every applied change whose values still stand.',
  reverted: 'Reverted.',
  discarded: 'Discarded: nothing was changed.',
};

/** The whole view for the current state. */
export function renderReview(state: ReviewState): string {
  const error = state.error ? `<p class="error" role="alert">${escapeHtml(state.error)}</p>` : '';
  const { changeset } = state;
  if (!changeset) return `<p class="waiting">Waiting for the proposed changes…</p>${error}`;
  const reviewing = changeset.status === 'staged';
  const busy = Boolean(state.busy);
  // One section per record; a created record is its own.
  const records = new Map<string, ReviewItem[]>();
  for (const item of changeset.items) {
    const key = item.action === 'create' ? item.id : `${item.entity}/${item.record_id}`;
    records.set(key, [...(records.get(key) ?? []), item]);
  }
  const sections = [...records.values()].map((items, index) => {
    const headingId = `record-${index}`;
    return `<section class="record" aria-labelledby="${headingId}"><h2 id="${headingId}">${escapeHtml(recordLabel(items[0] as ReviewItem))}</h2>${items.map((item) => renderChange(item, reviewing, busy)).join('')}</section>`;
  });
  const action =
    changeset.status === 'staged' ? 'Apply' : changeset.status === 'applied' ? 'Revert' : undefined;
  const button = action
    ? `<div class="actions"><button type="button" id="${ACTION_BUTTON_ID}" data-action="${action.toLowerCase()}"${busy ? ' disabled' : ''}>${action}</button></div>`
    : '';
  return [
    '<header>',
    `<h1>${escapeHtml(changeset.summary || 'Proposed changes')}</h1>`,
    `<p class="status" role="status">${escapeHtml(busy ? 'Working…' : CHANGESET_STATUS[changeset.status])}</p>`,
    '</header>',
    error,
    sections.join(''),
    button,
  ].join('');
}
