/**
 * The one-paragraph text a tool result carries beside its structured content: what happened, in
 * words a person reading the assistant's transcript understands.
 */
interface ChangesetLike {
  id: string;
  status: string;
  items: {
    index: number;
    entity: string;
    action: string;
    record_id: string;
    ticked: boolean;
    status: string;
  }[];
}

const plural = (count: number, noun: string) => `${count} ${noun}${count === 1 ? '' : 's'}`;

export function describeSnapshot(snapshot: {
  business_id: string;
  profile: unknown;
  records: Record<string, unknown[]>;
}) {
  const profile = snapshot.profile as { name?: unknown; version?: unknown } | null;
  const counts = Object.entries(snapshot.records)
    .filter(([, rows]) => rows.length > 0)
    .map(([entity, rows]) => plural(rows.length, entity.replace('_', ' ')));
  const head = profile
    ? `Business ${String(profile.name ?? snapshot.business_id)} (profile at version ${String(profile.version)})`
    : `Business ${snapshot.business_id} (no profile yet)`;
  return `${head} has ${counts.length > 0 ? counts.join(', ') : 'no other records'}. Read a record in full with read_record before proposing a change to it.`;
}

export function describeChangeset(changeset: ChangesetLike) {
  const ticked = changeset.items.filter((item) => item.ticked).length;
  const lines = changeset.items
    .slice(0, 10)
    .map(
      (item) =>
        `${item.index + 1}. ${item.action} ${item.entity}${item.record_id ? ` ${item.record_id}` : ''}${item.ticked ? '' : ' (unticked)'}`,
    );
  const more = changeset.items.length > 10 ? `; and ${changeset.items.length - 10} more` : '';
  return `Changeset ${changeset.id} is ${changeset.status} with ${plural(changeset.items.length, 'change')}, ${ticked} ticked: ${lines.join('; ')}${more}.`;
}

export function describeOutcome(
  verb: 'Applied' | 'Reverted',
  outcome: ChangesetLike & { counts: Record<string, number> },
) {
  const done = verb === 'Applied' ? (outcome.counts.applied ?? 0) : (outcome.counts.reverted ?? 0);
  const conflicts =
    verb === 'Applied' ? (outcome.counts.conflict ?? 0) : (outcome.counts.revert_conflict ?? 0);
  const skipped = verb === 'Applied' ? (outcome.counts.skipped ?? 0) : 0;
  const parts = [`${verb} ${plural(done, 'change')} of changeset ${outcome.id}`];
  if (skipped > 0) parts.push(`${skipped} unticked left out`);
  if (conflicts > 0) {
    parts.push(
      `${plural(conflicts, 'conflict')} left alone because the record changed since: read it again and propose anew if it still makes sense`,
    );
  }
  return `${parts.join('; ')}.`;
}
