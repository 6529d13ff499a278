import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { beforeAll, describe, expect, it } from 'vitest';
import { localUserId } from '../../infra/local/dev-issuer.ts';
import type { ApiResponse } from '../support/api.ts';
import { connectAssistant } from '../support/mcp-session.ts';
import { baseUrl } from '../support/oauth.ts';
import { arrangeTenant, type Tenant } from '../support/tenants.ts';

const _mcpUrl = () => `${baseUrl()}/mcp`;
// The tool server publishes JSON Schema 2020-12; ajv-formats checks uuid, date-time, email and
// uri. (Its CommonJS default export reaches ESM as the module object.)
const addFormats = addFormatsModule as unknown as { default: (ajv: Ajv2020) => Ajv2020 };
const ajv = addFormats.default(new Ajv2020({ strict: false, allErrors: true }));

/** A tool call whose structuredContent is checked against the tool's declared output schema. */
async function callChecked(
  client: Client,
  schemas: Map<string, object>,
  name: string,
  args: Record<string, unknown> = {},
) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError, `${name}: ${JSON.stringify(result.content)}`).toBeFalsy();
  const validate = ajv.compile(schemas.get(name) as Record<string, unknown>);
  expect(validate(result.structuredContent), `${name}: ${ajv.errorsText(validate.errors)}`).toBe(true);
  expect((result.content[0] as { text: string }).text.length).toBeGreaterThan(20);
  return result.structuredContent as ApiResponse['body'];
}

describe('the assistant tool server through the MCP SDK client', () => {
  let tenant: Tenant;
  let client: Client;
  let schemas: Map<string, object>;

  beforeAll(async () => {
    tenant = await arrangeTenant();
    ({ client } = await connectAssistant({ baseUrl: baseUrl(), userToken: tenant.tokens.owner }));
    const { tools } = await client.listTools();
    schemas = new Map(tools.map((tool) => [tool.name, tool.outputSchema as object]));
  });

  it('lists its tools with input and output schemas, annotations and workflow descriptions', async () => {
    const { tools } = await client.listTools();

    expect(tools.map((tool) => tool.name).sort()).toEqual([
      'apply_changes',
      'discard_changes',
      'get_changeset',
      'get_snapshot',
      'list_businesses',
      'open_edit_session',
      'propose_changes',
      'read_change_log',
      'read_record',
      'revert_changes',
      'set_change_ticked',
      'undo_change',
    ]);
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      expect(tool.description?.length, tool.name).toBeGreaterThan(60);
      expect(typeof tool.annotations?.readOnlyHint, tool.name).toBe('boolean');
    }
    const byName = new Map(tools.map((tool) => [tool.name, tool.annotations]));
    expect(byName.get('get_snapshot')).toMatchObject({ readOnlyHint: true, destructiveHint: false });
    expect(byName.get('apply_changes')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    expect(byName.get('undo_change')).toMatchObject({ destructiveHint: true });
    expect(byName.get('set_change_ticked')).toMatchObject({ idempotentHint: true });
    expect(client.getInstructions()).toContain('propose_changes');
  });

  it('does a whole edit: open, snapshot, propose two changes, untick one, apply, change log, undo', async () => {
    const call = (name: string, args: Record<string, unknown> = {}) =>
      callChecked(client, schemas, name, args);

    const { businesses } = await call('list_businesses');
    expect(businesses).toContainEqual({
      business_id: tenant.businessId,
      name: expect.any(String),
      role: 'owner',
    });
    const session = await call('open_edit_session', { business_id: tenant.businessId });
    expect(session.client_id).toEqual(expect.any(String));
    await call('get_snapshot', { session_id: session.id });

    const proposed = await call('propose_changes', {
      session_id: session.id,
      summary: 'Answer two questions',
      items: [
        {
          entity: 'faq',
          action: 'create',
          fields: { question: 'Open on Sundays?', answer: 'From 8 to 12.' },
        },
        { entity: 'faq', action: 'create', fields: { question: 'Parking?', answer: 'Behind the shop.' } },
      ],
    });
    await call('set_change_ticked', {
      changeset_id: proposed.id,
      item_id: proposed.items[1].id,
      ticked: false,
    });
    const outcome = await call('apply_changes', { changeset_id: proposed.id });
    expect(outcome.items.map((item: { status: string }) => item.status)).toEqual(['applied', 'skipped']);
    await call('get_changeset', { changeset_id: proposed.id });

    const faqId = outcome.items[0].record_id;
    const record = await call('read_record', { session_id: session.id, entity: 'faq', record_id: faqId });
    expect(record.data.question).toBe('Open on Sundays?');
    const log = await call('read_change_log', { business_id: tenant.businessId, limit: 5 });
    expect(log.entries[0]).toMatchObject({
      record_id: faqId,
      action: 'create',
      actor: { type: 'assistant', id: localUserId(tenant.emails.owner), client_id: session.client_id },
    });
    const undone = await call('undo_change', { business_id: tenant.businessId, entry_id: log.entries[0].id });
    expect(undone.undo_of).toBe(log.entries[0].id);

    // Revert and discard on a second changeset.
    const again = await call('propose_changes', {
      session_id: session.id,
      items: [{ entity: 'faq', action: 'create', fields: { question: 'Cards?', answer: 'Yes.' } }],
    });
    await call('apply_changes', { changeset_id: again.id });
    const reverted = await call('revert_changes', { changeset_id: again.id });
    expect(reverted.items[0].status).toBe('reverted');
    const third = await call('propose_changes', {
      session_id: session.id,
      items: [{ entity: 'faq', action: 'create', fields: { question: 'Dogs?', answer: 'Outside.' } }],
    });
    expect((await call('discard_changes', { changeset_id: third.id })).status).toBe('discarded');
  });

  it('types propose_changes items per entity: the client refuses a misspelt field, and a proposal across entities stages', async () => {
    const { tools } = await client.listTools();
    const clientCheck = ajv.compile(tools.find((tool) => tool.name === 'propose_changes')?.inputSchema ?? {});
    const session = await callChecked(client, schemas, 'open_edit_session', {
      business_id: tenant.businessId,
    });
    const faqs = await callChecked(client, schemas, 'propose_changes', {
      session_id: session.id,
      items: [
        { entity: 'faq', action: 'create', fields: { question: 'Typed?', answer: 'Yes.' } },
        { entity: 'faq', action: 'create', fields: { question: 'Gone soon?', answer: 'Yes.' } },
      ],
    });
    const [kept, dropped] = (await callChecked(client, schemas, 'apply_changes', { changeset_id: faqs.id }))
      .items as { record_id: string }[];
    const proposal = {
      session_id: session.id,
      summary: 'One change of each kind',
      items: [
        {
          entity: 'profile',
          action: 'update',
          fields: { tagline: 'Fresh every morning', founded_year: 1921 },
        },
        {
          entity: 'location',
          action: 'create',
          fields: {
            name: 'Harbour shop',
            address: { line1: 'Hafenstraße 1', city: 'Hamburg', country: 'DE' },
            timezone: 'Europe/Berlin',
            opening_hours: [{ day: 'monday', opens: '07:00', closes: '13:00' }],
          },
        },
        {
          entity: 'job_posting',
          action: 'create',
          fields: {
            title: 'Baker',
            description: 'Early mornings.',
            employment_type: 'part_time',
            salary: { min: 2000, max: 2600, currency: 'EUR', period: 'month' },
          },
        },
        { entity: 'faq', action: 'update', record_id: kept?.record_id, fields: { answer: 'Yes, typed.' } },
        { entity: 'faq', action: 'delete', record_id: dropped?.record_id },
      ],
    };
    const misspelt = {
      session_id: session.id,
      items: [{ entity: 'faq', action: 'update', record_id: kept?.record_id, fields: { answr: 'No.' } }],
    };

    expect(clientCheck(proposal), ajv.errorsText(clientCheck.errors)).toBe(true);
    const staged = await callChecked(client, schemas, 'propose_changes', proposal);
    expect(
      staged.items.map((item: { entity: string; action: string }) => `${item.entity} ${item.action}`),
    ).toEqual(['profile update', 'location create', 'job_posting create', 'faq update', 'faq delete']);
    expect(clientCheck(misspelt)).toBe(false);
    expect(clientCheck.errors).toContainEqual(
      expect.objectContaining({ keyword: 'additionalProperties', params: { additionalProperty: 'answr' } }),
    );
    const refused = (await client.callTool({
      name: 'propose_changes',
      arguments: misspelt,
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect((refused.content[0] as { text: string }).text).toMatch(/"answr"/);
  });

  it.each([
    [
      'an unknown session',
      'get_snapshot',
      { session_id: '00000000-0000-4000-8000-000000000000' },
      /session/i,
    ],
    ['a malformed id', 'get_changeset', { changeset_id: 'nope' }, /changeset_id/],
    [
      'an unknown field',
      'open_edit_session',
      { business_id: '00000000-0000-4000-8000-000000000000', x: 1 },
      /x/,
    ],
    ['another tenant’s business', 'open_edit_session', { business_id: 'OTHER' }, /owner or editor/],
    [
      'an invalid proposal',
      'propose_changes',
      { session_id: 'SESSION', items: [{ entity: 'faq', action: 'create', fields: { question: 'Q?' } }] },
      /answer/,
    ],
    ['a second apply', 'apply_changes', { changeset_id: 'APPLIED' }, /applied/],
    [
      'an undo of an undone change',
      'undo_change',
      { business_id: 'BUSINESS', entry_id: 'UNDONE' },
      /already been undone/,
    ],
    [
      'an unknown record',
      'read_record',
      { session_id: 'SESSION', entity: 'faq', record_id: 'f0000000-0000-4000-8000-000000000000' },
      /not found|no faq/i,
    ],
    [
      'a tick on an applied changeset',
      'set_change_ticked',
      { changeset_id: 'APPLIED', item_id: 'ITEM', ticked: false },
      /applied/,
    ],
    [
      'a discard of an applied changeset',
      'discard_changes',
      { changeset_id: 'APPLIED' },
      /cannot become discarded/,
    ],
    ['a revert of a staged changeset', 'revert_changes', { changeset_id: 'STAGED' }, /staged/],
    ['another tenant’s change log', 'read_change_log', { business_id: 'OTHER' }, /owner or editor/],
  ])('answers %s with isError and what to do next', async (_name, tool, args, message) => {
    const other = await arrangeTenant();
    const session = await callChecked(client, schemas, 'open_edit_session', {
      business_id: tenant.businessId,
    });
    const applied = await callChecked(client, schemas, 'propose_changes', {
      session_id: session.id,
      items: [{ entity: 'faq', action: 'create', fields: { question: 'Q?', answer: 'A.' } }],
    });
    await callChecked(client, schemas, 'apply_changes', { changeset_id: applied.id });
    const staged = await callChecked(client, schemas, 'propose_changes', {
      session_id: session.id,
      items: [{ entity: 'faq', action: 'create', fields: { question: 'Q2?', answer: 'A2.' } }],
    });
    const log = await callChecked(client, schemas, 'read_change_log', {
      business_id: tenant.businessId,
      limit: 1,
    });
    await callChecked(client, schemas, 'undo_change', {
      business_id: tenant.businessId,
      entry_id: log.entries[0].id,
    });
    const resolved = JSON.parse(
      JSON.stringify(args)
        .replace('OTHER', other.businessId)
        .replace('SESSION', session.id)
        .replace('APPLIED', applied.id)
        .replace('ITEM', applied.items[0].id)
        .replace('STAGED', staged.id)
        .replace('BUSINESS', tenant.businessId)
        .replace('UNDONE', log.entries[0].id),
    );

    const result = (await client.callTool({ name: tool, arguments: resolved })) as CallToolResult;

    expect(result.isError).toBe(true);
    expect((result.content[0] as { text: string }).text).toMatch(message);
  });
});
