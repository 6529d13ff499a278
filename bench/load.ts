/**
 * `npm run load`: a bounded load test through the local harness (its own stack on free ports).
 * N clients for M seconds create, update, read and list FAQs of several tenants through the
 * agent API, each with its tenant's agent key. Prints throughput and p50/p99 latency per kind of
 * operation, then reconciles: every acknowledged create is stored exactly once, every
 * acknowledged update is there (or a later version), no two updates were acknowledged with the
 * same version, and no client ever saw a record's version go backwards. Exits 1 on any breach.
 * Progress goes to stderr; `--help` lists the options.
 */
import { parseCommandLine, positiveWholeNumber, progress } from '../infra/command-line.ts';
import { startHarnessProcess } from '../infra/local/harness-process.ts';

const COMMAND = {
  name: 'npm run load',
  usage: `
Usage: npm run load -- [--clients N] [--seconds M] [--tenants T]

A bounded load test of the agent API on a local stack of its own (free ports): N clients create,
update, read and list FAQs of T businesses for M seconds, then every acknowledged write is
reconciled with what is stored. Prints throughput and latency per operation (Markdown, stdout) and
progress (stderr); exits 1 when a write was lost, doubled or went backwards.

  --clients N   concurrent clients (default 16)
  --seconds M   how long they run (default 20)
  --tenants T   businesses, each with its own agent key (default 4)
  -h, --help    this text

Example:
  npm run load -- --clients 32 --seconds 60
`,
};
const { values } = parseCommandLine(COMMAND, {
  options: {
    clients: { type: 'string', default: '16' },
    seconds: { type: 'string', default: '20' },
    tenants: { type: 'string', default: '4' },
  },
});
const CLIENTS = positiveWholeNumber(COMMAND, 'clients', values.clients);
const SECONDS = positiveWholeNumber(COMMAND, 'seconds', values.seconds);
const TENANTS = positiveWholeNumber(COMMAND, 'tenants', values.tenants);

type Kind = 'create' | 'update' | 'get' | 'list';
interface Faq {
  id: string;
  version: number;
  answer: string;
}
interface Tenant {
  businessId: string;
  key: string;
  /** Acknowledged creates (id → how many times acknowledged) and updates (id → version → answer). */
  created: Map<string, number>;
  updates: Map<string, Map<number, string>>;
  ids: string[];
}

progress('load: starting a local stack (emulators on free ports)…');
const harness = await startHarnessProcess();
const problems: string[] = [];
try {
  const { baseUrl, env } = harness.info;
  Object.assign(process.env, env, { POWERTOOLS_LOG_LEVEL: 'SILENT' });
  const { createDemoBusiness } = await import('../infra/local/seed.ts');
  const { createAgentKey } = await import('#lib/auth/agent-keys.ts');
  progress(`load: creating ${TENANTS} tenants with their agent keys…`);
  const tenants: Tenant[] = [];
  for (let index = 0; index < TENANTS; index++) {
    const business = await createDemoBusiness(`Load tenant ${index}`, `load-${index}.example`);
    const { key } = await createAgentKey({
      name: `load-${index}`,
      businesses: [business.id],
      scopes: ['read', 'write'],
    });
    tenants.push({ businessId: business.id, key, created: new Map(), updates: new Map(), ids: [] });
  }

  const latencies: Record<Kind, number[]> = { create: [], update: [], get: [], list: [] };
  const statuses = new Map<string, number>();
  const call = async (tenant: Tenant, kind: Kind, method: string, path: string, init: RequestInit = {}) => {
    const started = performance.now();
    const response = await fetch(`${baseUrl}/api/v1/agent/businesses/${tenant.businessId}/faqs${path}`, {
      ...init,
      method,
      headers: {
        authorization: `Bearer ${tenant.key}`,
        ...(init.body ? { 'content-type': 'application/json' } : {}),
        ...(init.headers as Record<string, string>),
      },
    });
    const body = (await response.json()) as { data?: unknown; meta?: { next_cursor?: string | null } };
    latencies[kind].push(performance.now() - started);
    const label = `${kind} ${response.status}`;
    statuses.set(label, (statuses.get(label) ?? 0) + 1);
    return { status: response.status, body };
  };

  const pick = <T>(list: T[]): T | undefined => list[Math.floor(Math.random() * list.length)];
  let stopAt = 0;

  async function client(clientIndex: number) {
    const tenant = tenants[clientIndex % tenants.length] as Tenant;
    /** The highest version of each record this client has seen (or written). */
    const seen = new Map<string, number>();
    const observe = (faq: Faq, how: string) => {
      const before = seen.get(faq.id) ?? 0;
      if (faq.version < before) {
        problems.push(
          `client ${clientIndex}: ${how} showed ${faq.id} at version ${faq.version} after ${before}`,
        );
      }
      seen.set(faq.id, Math.max(before, faq.version));
    };
    let sequence = 0;
    while (Date.now() < stopAt) {
      const roll = Math.random();
      const target = pick(tenant.ids);
      if (!target || roll < 0.15) {
        const { status, body } = await call(tenant, 'create', 'POST', '', {
          body: JSON.stringify({ question: `Load ${clientIndex}.${sequence++}?`, answer: 'v1' }),
        });
        if (status === 201) {
          const faq = body.data as Faq;
          tenant.created.set(faq.id, (tenant.created.get(faq.id) ?? 0) + 1);
          tenant.updates.set(faq.id, new Map([[faq.version, faq.answer]]));
          tenant.ids.push(faq.id);
          observe(faq, 'its create');
        }
      } else if (roll < 0.4) {
        const answer = `c${clientIndex} s${sequence++}`;
        const { status, body } = await call(tenant, 'update', 'PATCH', `/${target}`, {
          body: JSON.stringify({ answer }),
          headers: { 'if-match': `"${seen.get(target) ?? 1}"` },
        });
        if (status === 200) {
          const faq = body.data as Faq;
          const versions = tenant.updates.get(faq.id) as Map<number, string>;
          if (versions.has(faq.version)) {
            problems.push(`${faq.id}: two writes acknowledged as version ${faq.version}`);
          }
          versions.set(faq.version, answer);
          observe(faq, 'its update');
        } else if (status === 409) {
          // Another client got there first: learn the current version for the next try.
          const current = await call(tenant, 'get', 'GET', `/${target}`);
          if (current.status === 200) observe(current.body.data as Faq, 'a read');
        }
      } else if (roll < 0.75) {
        const { status, body } = await call(tenant, 'get', 'GET', `/${target}`);
        if (status === 200) observe(body.data as Faq, 'a read');
      } else {
        const { status, body } = await call(tenant, 'list', 'GET', '?limit=50');
        if (status === 200) for (const faq of body.data as Faq[]) observe(faq, 'a list');
      }
    }
  }

  // Warm every handler on a tenant of its own (cold module loads are the bench's subject, not this).
  const warm = await createDemoBusiness('Load warm-up', 'load-warm.example');
  const warmTenant: Tenant = {
    businessId: warm.id,
    key: (await createAgentKey({ name: 'load-warm', businesses: [warm.id], scopes: ['read', 'write'] })).key,
    created: new Map(),
    updates: new Map(),
    ids: [],
  };
  const warmed = await call(warmTenant, 'create', 'POST', '', {
    body: JSON.stringify({ question: 'Warm?', answer: 'v1' }),
  });
  const warmId = (warmed.body.data as Faq).id;
  await call(warmTenant, 'update', 'PATCH', `/${warmId}`, { body: JSON.stringify({ answer: 'v2' }) });
  await call(warmTenant, 'get', 'GET', `/${warmId}`);
  await call(warmTenant, 'list', 'GET', '');
  for (const list of Object.values(latencies)) list.length = 0;
  statuses.clear();

  const started = performance.now();
  stopAt = Date.now() + SECONDS * 1000;
  progress(`load: ${CLIENTS} clients for ${SECONDS} s…`);
  const requestsSoFar = () => Object.values(latencies).reduce((sum, list) => sum + list.length, 0);
  const ticker = setInterval(() => {
    const elapsedSeconds = Math.min(SECONDS, Math.round((performance.now() - started) / 1000));
    progress(
      `load: ${elapsedSeconds}/${SECONDS} s, ${requestsSoFar()} requests, ${problems.length} problems`,
    );
  }, 5000);
  try {
    await Promise.all(Array.from({ length: CLIENTS }, (_, index) => client(index)));
  } finally {
    clearInterval(ticker);
  }
  const elapsed = (performance.now() - started) / 1000;
  const measured = Object.entries(latencies).map(([kind, list]) => [kind, [...list]] as const);
  const measuredStatuses = [...statuses.entries()];

  // Reconcile: list everything each tenant has, page by page.
  progress('load: reconciling what was acknowledged with what is stored…');
  let storedTotal = 0;
  for (const tenant of tenants) {
    const stored: Faq[] = [];
    let cursor: string | null | undefined;
    do {
      const page = await call(
        tenant,
        'list',
        'GET',
        `?limit=500${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      if (page.status !== 200) throw new Error(`final list answered ${page.status}`);
      stored.push(...(page.body.data as Faq[]));
      cursor = page.body.meta?.next_cursor;
    } while (cursor);
    storedTotal += stored.length;
    const occurrences = new Map<string, Faq[]>();
    for (const faq of stored) occurrences.set(faq.id, [...(occurrences.get(faq.id) ?? []), faq]);
    for (const [id, times] of tenant.created) {
      if (times !== 1) problems.push(`${id}: its create was acknowledged ${times} times`);
      const found = occurrences.get(id) ?? [];
      if (found.length !== 1) problems.push(`${id}: acknowledged once, stored ${found.length} times`);
      const faq = found[0];
      if (!faq) continue;
      const versions = tenant.updates.get(id) as Map<number, string>;
      const highest = Math.max(...versions.keys());
      if (faq.version < highest) {
        problems.push(`${id}: stored at version ${faq.version}, but version ${highest} was acknowledged`);
      } else if (faq.version === highest && faq.answer !== versions.get(highest)) {
        problems.push(`${id}: version ${highest} holds another answer than the acknowledged one`);
      }
    }
    for (const id of occurrences.keys()) {
      if (!tenant.created.has(id))
        problems.push(`${id}: stored in tenant ${tenant.businessId} but never acknowledged`);
    }
  }

  const percentile = (sorted: number[], p: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
  const total = measured.reduce((sum, [, list]) => sum + list.length, 0);
  console.log(
    `\nLoad: ${CLIENTS} clients × ${SECONDS} s on ${TENANTS} tenants (agent API, FAQs; Node ${process.versions.node}, local harness, DynamoDB Local)\n`,
  );
  console.log(`${total} requests in ${elapsed.toFixed(1)} s: ${(total / elapsed).toFixed(1)} requests/s\n`);
  console.log('| operation | requests | p50 ms | p99 ms | max ms |');
  console.log('|---|---:|---:|---:|---:|');
  for (const [kind, list] of measured) {
    const sorted = [...list].sort((a, b) => a - b);
    console.log(
      `| ${kind} | ${list.length} | ${percentile(sorted, 50).toFixed(1)} | ${percentile(sorted, 99).toFixed(1)} | ${(sorted.at(-1) ?? Number.NaN).toFixed(1)} |`,
    );
  }
  console.log(
    `\nStatuses: ${measuredStatuses
      .sort()
      .map(([label, count]) => `${label} ×${count}`)
      .join(', ')}`,
  );
  const acknowledged = tenants.reduce((sum, tenant) => sum + tenant.created.size, 0);
  const updates = tenants.reduce(
    (sum, tenant) => sum + [...tenant.updates.values()].reduce((n, versions) => n + versions.size - 1, 0),
    0,
  );
  console.log(
    `Reconciled: ${acknowledged} acknowledged creates, ${updates} acknowledged updates, ${storedTotal} FAQs stored`,
  );
  if (problems.length) {
    console.log(`\n${problems.length} problems:\n${problems.slice(0, 50).join('\n')}`);
    process.exitCode = 1;
  } else {
    console.log('Every acknowledged write is stored exactly once; no version went backwards.');
  }
} finally {
  await harness.stop();
}
