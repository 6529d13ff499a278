import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { inject } from 'vitest';
import type { RouteDefinition } from '#lib/http/route.ts';
import { png } from './images.ts';
import { contractProblems } from './openapi-contract.ts';
import {
  bodySchemaOf,
  describeExchange,
  fillPath,
  type HttpRequest,
  knownValues,
  parametersIn,
  pathIdResolvers,
  send,
} from './route-requests.ts';
import { mutatedObject, oddString, oddValue, validValue } from './schema-arbitraries.ts';
import type { TenantWorld } from './tenant-world.ts';

/**
 * The schema-driven fuzz: for every route, requests generated from its published
 * schemas — valid ones, boundary values, wrong types, unknown fields, odd and huge strings, bad
 * JSON, forged cursors, odd query values and headers — sent with the right tenant's valid
 * credential; every response must be documented for the operation and match its schema.
 *
 * FUZZ_SEED and FUZZ_RUNS (runs per route) make a longer or different run one flag away:
 *   FUZZ_SEED=7 FUZZ_RUNS=200 npx vitest run test/integration/fuzz-
 */
export const fuzzSettings = {
  seed: Number(process.env.FUZZ_SEED ?? 20_260_711),
  runs: Number(process.env.FUZZ_RUNS ?? 12),
};

/** Each route gets its own seed from the base seed, so adding a route changes no other route's run. */
const routeSeed = (operationId: string) =>
  createHash('sha256').update(`${fuzzSettings.seed}:${operationId}`).digest().readInt32BE(0);

/** The right tenant's credential for the route: the one a legitimate caller would send. */
export function rightCredential(
  route: RouteDefinition,
  world: TenantWorld,
): fc.Arbitrary<Record<string, string>> {
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
  switch (route.auth) {
    case 'console':
      return fc.constant(
        bearer(
          route.area === 'admin'
            ? inject('harness').credentials.platform_admin_token
            : world.victim.tokens.owner,
        ),
      );
    case 'edits':
      return fc.constantFrom(bearer(world.victim.tokens.owner), bearer(world.victim.assistantEditsToken));
    case 'agent':
      return fc.constant(bearer(world.victim.agentKey));
    case 'internal':
      return fc.constant({ 'x-internal-api-key': inject('harness').credentials.internal_api_key });
    case 'mcp':
      return fc.constant(bearer(world.victim.assistantMcpToken));
    case 'none':
      return fc.constant({});
    default:
      throw new Error(`${route.operationId}: the fuzz does not know auth kind '${route.auth}'`);
  }
}

/**
 * Whether a value fits in a URL our HTTP stack takes at all: Node's server (the harness) refuses
 * a request head over 16 KB with 431 before the service sees it, as API Gateway refuses long URLs
 * itself; that is the transport's answer, not the operation's.
 */
const fitsInUrl = (value: string) => encodeURIComponent(value).length <= 2000;

/** Strings that survive URL encoding (lone surrogates cannot be encoded). */
const wellFormed = (value: string) =>
  value.replace(/[\uD800-\uDFFF]/g, (unit, index: number, all: string) =>
    /[\uD800-\uDBFF]/.test(unit)
      ? /[\uDC00-\uDFFF]/.test(all[index + 1] ?? '')
        ? unit
        : '\uFFFD'
      : /[\uD800-\uDBFF]/.test(all[index - 1] ?? '')
        ? unit
        : '\uFFFD',
  );

function pathValue(key: string, world: TenantWorld): fc.Arbitrary<string> {
  const real = pathIdResolvers[key]?.(world);
  if (real === undefined) throw new Error(`the fuzz does not know what ${key} names`);
  return fc.oneof(
    { arbitrary: fc.constant(real), weight: 8 },
    { arbitrary: fc.constant(real.toUpperCase()), weight: 1 },
    { arbitrary: fc.uuid(), weight: 1 },
    {
      arbitrary: oddString.map(wellFormed).filter((value) => value.length > 0 && fitsInUrl(value)),
      weight: 2,
    },
  );
}

const base64url = (value: string) => Buffer.from(value).toString('base64url');

/** Cursors a client could send: forged keys, other queries' shapes, garbage. */
const cursorValue: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    base64url('["","RECORD#faq#x"]'),
    base64url('["~","RECORD#faq#00000000-0000-0000-0000-000000000000"]'),
    base64url('{"pk":"BUSINESS#x","sk":"PROFILE"}'),
    base64url('[1,2]'),
    base64url('null'),
    base64url('[]'),
    base64url('"x"'),
    base64url('{"seq":"0000000000000001","since":"2020-01-01T00:00:00.000Z"}'),
    base64url('{"seq":"9999999999999999","since":"2999-01-01T00:00:00.000Z"}'),
    'not base64!',
    '====',
    'e30',
  ),
  fc.jsonValue({ maxDepth: 2 }).map((value) => base64url(JSON.stringify(value))),
  fc.array(fc.string({ maxLength: 30 }), { maxLength: 4 }).map((keys) => base64url(JSON.stringify(keys))),
  fc.string({ maxLength: 40 }).map(wellFormed),
);

const stringify = (value: unknown) =>
  typeof value === 'string' ? value : (JSON.stringify(value) ?? 'undefined');

function queryArbitrary(route: RouteDefinition, world: TenantWorld): fc.Arbitrary<[string, string][]> {
  const entries = parametersIn(route, 'query').map((parameter) => {
    const valid =
      parameter.name === 'business_id' ? fc.constant(world.victim.businessId) : validValue(parameter.schema);
    const value = fc.oneof(
      { arbitrary: valid.map(stringify), weight: 4 },
      {
        arbitrary: oddValue(parameter.schema)
          .map((v) => wellFormed(stringify(v)))
          .filter(fitsInUrl),
        weight: 2,
      },
      // `after` is the event feed's cursor.
      ...(parameter.name === 'cursor' || parameter.name === 'after'
        ? [{ arbitrary: cursorValue, weight: 8 }]
        : []),
    );
    const pairs = parameter.required
      ? value.map((v): [string, string][] => [[parameter.name, v]])
      : fc
          .option(value, { freq: 2 })
          .map((v): [string, string][] => (v === null ? [] : [[parameter.name, v]]));
    return pairs;
  });
  const extras = fc.oneof(
    { arbitrary: fc.constant<[string, string][]>([]), weight: 6 },
    { arbitrary: fc.constant<[string, string][]>([['unknown_param', '1']]), weight: 1 },
    {
      arbitrary: fc.constant<[string, string][]>([
        ['limit', '1'],
        ['limit', '2'],
      ]),
      weight: 1,
    },
    { arbitrary: fc.constant<[string, string][]>([['cursor', '']]), weight: 1 },
  );
  return fc.tuple(fc.tuple(...entries), extras).map(([lists, extra]) => [...lists.flat(), ...extra]);
}

/** Header values fetch can send (visible ASCII). */
const headerText = fc.string({
  unit: fc.constantFrom(...' !"#$%&()*+,-./0123456789:;<=>?@ABCXYZ[]^_`abcxyz{|}~'),
  maxLength: 60,
});

const oddHeaders: fc.Arbitrary<Record<string, string>> = fc.oneof(
  { arbitrary: fc.constant({}), weight: 6 },
  {
    arbitrary: fc.constantFrom<Record<string, string>>(
      { accept: 'text/html' },
      { accept: 'application/xml' },
      { 'if-match': '*' },
      { 'if-match': 'W/"x"' },
      { 'if-none-match': '"abc", W/"def"' },
      { 'x-forwarded-for': '1.2.3.4, ::1' },
      { origin: 'https://evil.example' },
      { 'x-long-header': 'a'.repeat(4000) },
      { 'accept-encoding': 'gzip;q=0, *;q=0' },
    ),
    weight: 2,
  },
  { arbitrary: headerText.map((value) => ({ 'x-odd': value })), weight: 1 },
);

/** Content types to put on a JSON body besides application/json. */
const oddJsonContentType = fc.constantFrom(
  'APPLICATION/JSON',
  'application/json; charset=UTF-8',
  'application/json; charset=utf-16',
  'application/merge-patch+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/xml',
);

/** Texts that are not valid JSON, or are JSON of an unexpected shape. */
const badJson = fc.oneof(
  fc.constantFrom(
    '{',
    '{"a":',
    '}',
    'null',
    '[]',
    '"text"',
    '1',
    'true',
    '{"a":1,"a":2}',
    '\uFEFF{}',
    'NaN',
    '{"__proto__":{"polluted":1}}',
    '{"constructor":{"prototype":{"polluted":1}}}',
    `${'['.repeat(20_000)}${']'.repeat(20_000)}`,
    '{"a":"\\ud800"}',
    '{"a":1}garbage',
  ),
  fc.string({ maxLength: 50 }).map(wellFormed),
);

type Body = { body?: string | FormData | URLSearchParams; contentType?: string };

function jsonBody(route: RouteDefinition, world: TenantWorld): fc.Arbitrary<Body> {
  const schema = bodySchemaOf(route);
  const known = knownValues(world);
  const json = (value: unknown) => JSON.stringify(value) ?? 'null';
  return fc.oneof(
    {
      arbitrary: validValue(schema, known).map((v) => ({ body: json(v), contentType: 'application/json' })),
      weight: 4,
    },
    {
      arbitrary: mutatedObject(schema, known).map((v) => ({
        body: json(v),
        contentType: 'application/json',
      })),
      weight: 4,
    },
    { arbitrary: badJson.map((body) => ({ body, contentType: 'application/json' })), weight: 2 },
    {
      arbitrary: fc
        .tuple(validValue(schema, known), oddJsonContentType)
        .map(([v, contentType]) => ({ body: json(v), contentType })),
      weight: 2,
    },
    {
      arbitrary: fc.constant({ body: `{"x":"${'y'.repeat(300_000)}"}`, contentType: 'application/json' }),
      weight: 1,
    },
    { arbitrary: fc.constant({}), weight: 1 },
  );
}

function formBody(route: RouteDefinition): fc.Arbitrary<Body> {
  const schema = bodySchemaOf(route);
  const toForm = (value: unknown) => {
    const form = new URLSearchParams();
    if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
      for (const [key, inner] of Object.entries(value)) form.append(key, wellFormed(stringify(inner)));
    }
    return form;
  };
  return fc.oneof(
    fc.oneof(validValue(schema), mutatedObject(schema)).map((value) => ({ body: toForm(value) })),
    badJson.map((body) => ({ body, contentType: 'application/x-www-form-urlencoded' })),
    badJson.map((body) => ({ body, contentType: 'application/json' })),
  );
}

function multipartBody(world: TenantWorld): fc.Arbitrary<Body> {
  const meta = fc.oneof(
    fc.constant(
      JSON.stringify({ business_id: world.victim.businessId, source_asset_id: world.victim.photoId }),
    ),
    mutatedObject({
      type: 'object',
      properties: {
        business_id: { type: 'string', format: 'uuid' },
        source_asset_id: { type: 'string', format: 'uuid' },
        alt_text: { type: 'string', maxLength: 500 },
        idempotency_key: { type: 'string', maxLength: 200 },
      },
      required: ['business_id', 'source_asset_id'],
    }).map((value) => JSON.stringify(value) ?? 'null'),
    badJson,
  );
  const file = fc.oneof(
    fc.constant(png(4, 4, [1, 2, 3])),
    fc.uint8Array({ maxLength: 64 }).map((bytes) => Buffer.from(bytes)),
    fc.constant(Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"/>')),
  );
  return fc.oneof(
    fc.tuple(fc.option(file), fc.option(meta.map(wellFormed))).map(([bytes, text]) => {
      const form = new FormData();
      if (bytes) form.set('file', new Blob([bytes], { type: 'image/png' }), 'x.png');
      if (text !== null) form.set('meta', text);
      return { body: form };
    }),
    badJson.map((body) => ({ body, contentType: 'multipart/form-data; boundary=nothing' })),
    badJson.map((body) => ({ body, contentType: 'application/json' })),
  );
}

function bodyArbitrary(route: RouteDefinition, world: TenantWorld): fc.Arbitrary<Body> {
  if (!route.request.body) {
    return fc.oneof(
      { arbitrary: fc.constant({}), weight: 5 },
      { arbitrary: fc.constant({ body: '{"x":1}', contentType: 'application/json' }), weight: 1 },
    );
  }
  switch (route.bodyFormat ?? 'json') {
    case 'json':
      return jsonBody(route, world);
    case 'form':
      return formBody(route);
    case 'multipart':
      return multipartBody(world);
  }
}

/** Requests for one route: path, query, headers and body drawn independently. */
export function fuzzRequests(route: RouteDefinition, world: TenantWorld): fc.Arbitrary<HttpRequest> {
  const keys = route.path
    .split('/')
    .flatMap((segment, index, all) =>
      segment.startsWith('{') ? [`${all[index - 1] ?? ''}/${segment}`] : [],
    );
  const pathValues = fc.tuple(...keys.map((key) => pathValue(key, world)));
  const headerParams = fc.tuple(
    ...parametersIn(route, 'header').map((parameter) =>
      fc
        .option(fc.oneof(validValue(parameter.schema).map(stringify), headerText), { freq: 2 })
        .map((value) => (value === null ? {} : { [parameter.name]: value })),
    ),
  );
  return fc
    .tuple(
      pathValues,
      queryArbitrary(route, world),
      rightCredential(route, world),
      headerParams,
      oddHeaders,
      bodyArbitrary(route, world),
    )
    .map(([values, query, credential, routeHeaders, extraHeaders, body]) => {
      const byKey = new Map(keys.map((key, index) => [key, values[index] as string]));
      const search = new URLSearchParams(query).toString();
      const headers: Record<string, string> = {
        ...Object.assign({}, ...routeHeaders),
        ...extraHeaders,
        ...credential,
      };
      if (route.auth === 'mcp') headers.accept ??= 'application/json, text/event-stream';
      if (body.contentType) headers['content-type'] = body.contentType;
      // fetch cannot send a body with GET (API Gateway passes one on, but HTTP clients rarely can).
      const withBody = body.body !== undefined && route.method !== 'GET';
      return {
        method: route.method,
        path: `${fillPath(route, (key) => byKey.get(key) ?? '')}${search ? `?${search}` : ''}`,
        headers,
        ...(withBody ? { body: body.body } : {}),
      };
    });
}

/** What is wrong with one response: a 5xx, or anything the OpenAPI document does not describe. */
export async function fuzzProblems(route: RouteDefinition, request: HttpRequest): Promise<string[]> {
  const response = await send(request);
  const problems = contractProblems(route, response);
  if (response.status >= 500) problems.unshift(`a ${response.status}`);
  return problems.length === 0 ? [] : [`${problems.join('; ')}\n  ${describeExchange(request, response)}`];
}

/** Fuzz one route; throws with the failing request, the response and how to replay it. */
export async function fuzzRoute(route: RouteDefinition, world: TenantWorld): Promise<void> {
  const seed = routeSeed(route.operationId);
  const result = await fc.check(
    fc.asyncProperty(fuzzRequests(route, world), async (request) => {
      const problems = await fuzzProblems(route, request);
      if (problems.length > 0) throw new Error(problems.join('\n'));
    }),
    { seed, numRuns: fuzzSettings.runs, endOnFailure: false, maxSkipsPerRun: 0 },
  );
  if (result.failed) {
    const error =
      result.errorInstance instanceof Error ? result.errorInstance.message : String(result.errorInstance);
    throw new Error(
      `${route.operationId} failed the fuzz after ${result.numRuns} run(s), shrunk ${result.numShrinks} time(s). ` +
        `Replay: FUZZ_SEED=${fuzzSettings.seed} FUZZ_RUNS=${fuzzSettings.runs} (route seed ${seed}, path ${result.counterexamplePath})\n${error}`,
    );
  }
}
