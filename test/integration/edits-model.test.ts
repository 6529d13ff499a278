import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createAgentKey } from '#lib/auth/agent-keys.ts';
import { agentApi, collectionPath, historyOf, itemPath } from '../support/agents.ts';
import { api } from '../support/api.ts';
import { arrangeTenant } from '../support/tenants.ts';

/**
 * Model-based test of the edits API: random sequences of agent writes, staging, ticking,
 * applying, discarding, reverting and undoing run against the service and against this small
 * model of three FAQ answers; after every step, answers, versions and Change History agree.
 */
const RECORDS = 3;
// Two values, so that writes collide often: a value changed and changed back counts as unmoved.
const VALUES = ['a', 'b'];

interface ModelItem {
  record: number;
  before: string;
  value: string;
  ticked: boolean;
  status: 'staged' | 'applied' | 'conflict' | 'skipped' | 'reverted' | 'revert_conflict';
}
interface ModelChangeset {
  id: string;
  itemIds: string[];
  status: 'staged' | 'applied' | 'discarded' | 'reverted';
  items: ModelItem[];
}
interface ModelEntry {
  record: number;
  before: string;
  after: string;
  undone: boolean;
}
interface Model {
  answers: string[];
  versions: number[];
  history: number[];
  changesets: ModelChangeset[];
  /** Update entries, oldest first (creates are left out: they are never undone here). */
  entries: ModelEntry[];
}
interface Real {
  businessId: string;
  ids: string[];
  key: string;
  token: string;
  sessionId: string;
}

const write = (model: Model, record: number, value: string) => {
  const before = model.answers[record] ?? '';
  model.answers[record] = value;
  model.versions[record] = (model.versions[record] ?? 0) + 1;
  model.history[record] = (model.history[record] ?? 0) + 1;
  model.entries.push({ record, before, after: value, undone: false });
};

class AgentWrite implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly record: number,
    readonly value: string,
  ) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const response = await agentApi(
      'PATCH',
      itemPath(real.businessId, 'faq', real.ids[this.record] ?? ''),
      real.key,
      { json: { answer: this.value } },
    );
    expect(response.status).toBe(200);
    write(model, this.record, this.value);
  }
  toString = () => `AgentWrite(${this.record}, ${this.value})`;
}

class Stage implements fc.AsyncCommand<Model, Real> {
  constructor(readonly changes: { record: number; value: string }[]) {}
  check = () => true;
  async run(model: Model, real: Real) {
    const items = this.changes.map((c) => ({
      entity: 'faq',
      action: 'update',
      record_id: real.ids[c.record],
      fields: { answer: c.value },
    }));
    const response = await api('POST', `/api/v1/edits/sessions/${real.sessionId}/changesets`, {
      token: real.token,
      json: { items },
    });
    expect(response.status).toBe(201);
    model.changesets.push({
      id: response.body.data.id,
      itemIds: response.body.data.items.map((i: { id: string }) => i.id),
      status: 'staged',
      items: this.changes.map((c) => ({
        record: c.record,
        before: model.answers[c.record] ?? '',
        value: c.value,
        ticked: true,
        status: 'staged',
      })),
    });
  }
  toString = () => `Stage(${JSON.stringify(this.changes)})`;
}

class Tick implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly changeset: number,
    readonly item: number,
    readonly ticked: boolean,
  ) {}
  check = (model: Readonly<Model>) => model.changesets.length > 0;
  async run(model: Model, real: Real) {
    const changeset = model.changesets[this.changeset % model.changesets.length];
    if (!changeset) return;
    const index = this.item % changeset.items.length;
    const response = await api(
      'PATCH',
      `/api/v1/edits/changesets/${changeset.id}/items/${changeset.itemIds[index]}`,
      { token: real.token, json: { ticked: this.ticked } },
    );
    if (changeset.status !== 'staged') {
      expect(response.status).toBe(409);
      return;
    }
    expect(response.status).toBe(200);
    const item = changeset.items[index];
    if (item) item.ticked = this.ticked;
  }
  toString = () => `Tick(${this.changeset}, ${this.item}, ${this.ticked})`;
}

class Apply implements fc.AsyncCommand<Model, Real> {
  constructor(readonly changeset: number) {}
  check = (model: Readonly<Model>) => model.changesets.length > 0;
  async run(model: Model, real: Real) {
    const changeset = model.changesets[this.changeset % model.changesets.length];
    if (!changeset) return;
    const response = await api('POST', `/api/v1/edits/changesets/${changeset.id}/apply`, {
      token: real.token,
    });
    if (changeset.status !== 'staged') {
      expect(response.status).toBe(409);
      return;
    }
    expect(response.status).toBe(200);
    for (const item of changeset.items) {
      if (!item.ticked) item.status = 'skipped';
      else if (model.answers[item.record] !== item.before) item.status = 'conflict';
      else {
        item.status = 'applied';
        write(model, item.record, item.value);
      }
    }
    changeset.status = 'applied';
    expect(response.body.data.items.map((i: { status: string }) => i.status)).toEqual(
      changeset.items.map((i) => i.status),
    );
  }
  toString = () => `Apply(${this.changeset})`;
}

class Discard implements fc.AsyncCommand<Model, Real> {
  constructor(readonly changeset: number) {}
  check = (model: Readonly<Model>) => model.changesets.length > 0;
  async run(model: Model, real: Real) {
    const changeset = model.changesets[this.changeset % model.changesets.length];
    if (!changeset) return;
    const response = await api('POST', `/api/v1/edits/changesets/${changeset.id}/discard`, {
      token: real.token,
    });
    if (changeset.status !== 'staged') {
      expect(response.status).toBe(409);
      return;
    }
    expect(response.status).toBe(200);
    changeset.status = 'discarded';
  }
  toString = () => `Discard(${this.changeset})`;
}

class Revert implements fc.AsyncCommand<Model, Real> {
  constructor(readonly changeset: number) {}
  check = (model: Readonly<Model>) => model.changesets.length > 0;
  async run(model: Model, real: Real) {
    const changeset = model.changesets[this.changeset % model.changesets.length];
    if (!changeset) return;
    const response = await api('POST', `/api/v1/edits/changesets/${changeset.id}/revert`, {
      token: real.token,
    });
    if (changeset.status !== 'applied') {
      expect(response.status).toBe(409);
      return;
    }
    expect(response.status).toBe(200);
    for (const item of [...changeset.items].reverse()) {
      if (item.status !== 'applied') continue;
      if (model.answers[item.record] === item.value) {
        item.status = 'reverted';
        write(model, item.record, item.before);
      } else {
        item.status = 'revert_conflict';
      }
    }
    changeset.status = 'reverted';
    expect(response.body.data.items.map((i: { status: string }) => i.status)).toEqual(
      changeset.items.map((i) => i.status),
    );
  }
  toString = () => `Revert(${this.changeset})`;
}

class UndoNewest implements fc.AsyncCommand<Model, Real> {
  constructor(readonly record: number) {}
  check = (model: Readonly<Model>) => model.entries.some((entry) => entry.record === this.record);
  async run(model: Model, real: Real) {
    const entry = [...model.entries].reverse().find((e) => e.record === this.record);
    if (!entry) return;
    const log = await api('GET', `/api/v1/edits/businesses/${real.businessId}/change-log?limit=200`, {
      token: real.token,
    });
    const newest = log.body.data.find((e: { record_id: string }) => e.record_id === real.ids[this.record]);
    const response = await api(
      'POST',
      `/api/v1/edits/businesses/${real.businessId}/change-log/${newest.id}/undo`,
      { token: real.token },
    );
    if (entry.undone || model.answers[this.record] !== entry.after) {
      expect(response.status).toBe(409);
      return;
    }
    expect(response.status).toBe(200);
    entry.undone = true;
    write(model, this.record, entry.before);
  }
  toString = () => `UndoNewest(${this.record})`;
}

const record = fc.integer({ min: 0, max: RECORDS - 1 });
const value = fc.constantFrom(...VALUES);
const agentWrite = fc.tuple(record, value).map(([r, v]) => new AgentWrite(r, v));
const stage = fc
  .uniqueArray(fc.tuple(record, value), { minLength: 1, maxLength: RECORDS, selector: ([r]) => r })
  .map((changes) => new Stage(changes.map(([r, v]) => ({ record: r, value: v }))));
const apply = fc.nat({ max: 3 }).map((c) => new Apply(c));
const revert = fc.nat({ max: 3 }).map((c) => new Revert(c));
// Staging, agent writes, apply and revert appear twice: the sequences that matter interleave them.
const commands = [
  agentWrite,
  agentWrite,
  stage,
  stage,
  fc.tuple(fc.nat({ max: 3 }), fc.nat(), fc.boolean()).map(([c, i, t]) => new Tick(c, i, t)),
  apply,
  apply,
  fc.nat({ max: 3 }).map((c) => new Discard(c)),
  revert,
  revert,
  record.map((r) => new UndoNewest(r)),
];

describe('edits API: model-based', () => {
  it('keeps records, versions and the Change History in step with the model', async () => {
    await fc.assert(
      fc.asyncProperty(fc.commands(commands, { maxCommands: 25, size: 'medium' }), async (cmds) => {
        const tenant = await arrangeTenant();
        const { key } = await createAgentKey({
          name: 'model',
          businesses: [tenant.businessId],
          scopes: ['read', 'write'],
        });
        const ids: string[] = [];
        for (let i = 0; i < RECORDS; i++) {
          const created = await agentApi('POST', collectionPath(tenant.businessId, 'faq'), key, {
            json: { question: `Q${i}?`, answer: 'a' },
          });
          ids.push(created.body.data.id);
        }
        const session = await api('POST', '/api/v1/edits/sessions', {
          token: tenant.tokens.owner,
          json: { business_id: tenant.businessId },
        });
        const real: Real = {
          businessId: tenant.businessId,
          ids,
          key,
          token: tenant.tokens.owner,
          sessionId: session.body.data.id,
        };
        const model: Model = {
          answers: Array(RECORDS).fill('a'),
          versions: Array(RECORDS).fill(1),
          history: Array(RECORDS).fill(1),
          changesets: [],
          entries: [],
        };
        await fc.asyncModelRun(
          () => ({ model, real }),
          [...cmds].map((command) => ({
            check: (m: Readonly<Model>) => command.check(m),
            run: async (m: Model, r: Real) => {
              await command.run(m, r);
              for (let i = 0; i < RECORDS; i++) {
                const read = await agentApi('GET', itemPath(r.businessId, 'faq', r.ids[i] ?? ''), r.key);
                expect(read.body.data.answer, `answer of ${i} after ${command}`).toBe(m.answers[i]);
                expect(read.body.data.version, `version of ${i} after ${command}`).toBe(m.versions[i]);
                expect(
                  await historyOf(r.businessId, r.ids[i] ?? ''),
                  `history of ${i} after ${command}`,
                ).toHaveLength(m.history[i] ?? 0);
              }
            },
            toString: () => command.toString(),
          })),
        );
      }),
      { numRuns: 25 },
    );
  }, 240_000);
});
