import { beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '#lib/routes/route-table.ts';
import { parameterName } from '../../infra/parameters.ts';
import { type Json, type Resources, synthesize } from '../support/cdk-app.ts';

/**
 * The console functions get the user pool's public keys at deployment (JWT_KEY_SET): a custom
 * resource of the stateful stack fetches them from the pool's JWKS URL into the `jwt-key-set`
 * parameter, which the routes stacks read into the environment of every console and edits
 * function. With another issuer there is nothing to fetch at deployment: the parameter holds
 * `{"keys":[]}` and the functions fetch the set themselves.
 */
type Synth = ReturnType<typeof synthesize>;
const SYNTH_TIMEOUT = 180_000;
const KEY_SET_PARAMETER = parameterName('dev', 'jwt-key-set');
const ofType = (resources: Resources, type: string) =>
  Object.entries(resources).filter(([, resource]) => resource.Type === type);

/** The value the stateful stack writes to the jwt-key-set parameter. */
function keySetParameterValue(app: Synth): Json {
  const found = ofType(app.template('-Stateful').toJSON().Resources, 'AWS::SSM::Parameter').find(
    ([, parameter]) => parameter.Properties?.Name === KEY_SET_PARAMETER,
  );
  if (!found) throw new Error('no jwt-key-set parameter');
  return found[1].Properties?.Value;
}

/** JWT_KEY_SET of each routed function, by operation id, resolved to the SSM parameter it reads. */
function keySetVariables(app: Synth): Map<string, string | undefined> {
  const variables = new Map<string, string | undefined>();
  for (const [name, template] of app.templates) {
    if (!name.includes('-Routes-')) continue;
    const json = template.toJSON();
    for (const [, fn] of ofType(json.Resources, 'AWS::Lambda::Function')) {
      const route = routeTable.find((row) => fn.Properties?.Description === `${row.method} ${row.path}`);
      if (!route) continue;
      const ref = fn.Properties?.Environment?.Variables?.JWT_KEY_SET?.Ref;
      variables.set(route.operationId, ref === undefined ? undefined : json.Parameters[ref].Default);
    }
  }
  return variables;
}

const readsConsoleTokens = (operationId: string) =>
  routeTable.some((route) => route.operationId === operationId && ['console', 'edits'].includes(route.auth));

describe('the console key set, with the stack’s own user pool', () => {
  let app: Synth;
  let stateful: Resources;

  beforeAll(() => {
    app = synthesize();
    stateful = app.template('-Stateful').toJSON().Resources;
  }, SYNTH_TIMEOUT);

  it('fetches the pool’s JWKS in a custom resource whose attribute the jwt-key-set parameter takes', () => {
    const resources = ofType(stateful, 'Custom::ConsoleKeySet');
    expect(resources).toHaveLength(1);
    const [resourceId, resource] = resources[0] ?? ['', {} as Json];
    const [poolId] = ofType(stateful, 'AWS::Cognito::UserPool')[0] ?? [];
    expect(resource.Properties?.JwksUrl).toEqual({
      'Fn::Join': [
        '',
        [
          'https://cognito-idp.',
          { Ref: 'AWS::Region' },
          '.amazonaws.com/',
          { Ref: poolId },
          '/.well-known/jwks.json',
        ],
      ],
    });
    expect(keySetParameterValue(app)).toEqual({ 'Fn::GetAtt': [resourceId, 'KeySet'] });
  });

  it('runs our fetch function behind CDK’s provider, each with its own log group and no grant beyond it', () => {
    const [, resource] = ofType(stateful, 'Custom::ConsoleKeySet')[0] ?? [];
    const providerId = resource?.Properties?.ServiceToken['Fn::GetAtt'][0];
    const provider: Json = stateful[providerId];
    const fetchId = provider?.Properties?.Environment.Variables.USER_ON_EVENT_FUNCTION_ARN['Fn::GetAtt'][0];
    const fetch: Json = stateful[fetchId];
    expect(fetch?.Properties?.Description).toMatch(/fetches the console issuer's public key set/);

    const statementsOf = (fn: Json): Json[] =>
      ofType(stateful, 'AWS::IAM::Policy')
        .filter(([, policy]) =>
          policy.Properties?.Roles.some((role: Json) => role.Ref === fn.Properties.Role['Fn::GetAtt'][0]),
        )
        .flatMap(([, policy]) => policy.Properties?.PolicyDocument.Statement);
    for (const fn of [fetch, provider]) {
      const logGroup = fn.Properties.LoggingConfig.LogGroup.Ref;
      expect(stateful[logGroup]?.Properties?.RetentionInDays).toBe(30);
      expect(stateful[fn.Properties.Role['Fn::GetAtt'][0]]?.Properties?.ManagedPolicyArns).toBeUndefined();
      expect(statementsOf(fn)).toContainEqual(
        expect.objectContaining({
          Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
          Resource: { 'Fn::GetAtt': [logGroup, 'Arn'] },
        }),
      );
    }
    // Our function: logs, and X-Ray as every function of ours traces.
    expect(new Set(statementsOf(fetch).flatMap((statement) => [statement.Action].flat()))).toEqual(
      new Set([
        'logs:CreateLogStream',
        'logs:PutLogEvents',
        'xray:PutTraceSegments',
        'xray:PutTelemetryRecords',
      ]),
    );
    // CDK's provider: logs, and calling our function only.
    for (const statement of statementsOf(provider)) {
      if (String(statement.Action).startsWith('logs:')) continue;
      expect(String(statement.Action)).toMatch(/^lambda:(InvokeFunction|GetFunction)$/);
      expect(JSON.stringify(statement.Resource)).toContain(`"${fetchId}"`);
    }
  });

  it('gives JWT_KEY_SET, from that parameter, to every console and edits function and to no other', () => {
    const variables = keySetVariables(app);
    expect(variables.size).toBe(routeTable.length);
    for (const [operationId, parameter] of variables) {
      expect(parameter, operationId).toBe(readsConsoleTokens(operationId) ? KEY_SET_PARAMETER : undefined);
    }
  });
});

describe('the console key set, with another issuer', () => {
  let app: Synth;

  beforeAll(() => {
    app = synthesize({ issuer: 'https://login.customer.test', issuerAudience: 'console' });
  }, SYNTH_TIMEOUT);

  it('has no custom resource and writes {"keys":[]}: the functions fetch the set themselves', () => {
    const stateful = app.template('-Stateful').toJSON().Resources;
    expect(ofType(stateful, 'Custom::ConsoleKeySet')).toEqual([]);
    expect(
      ofType(stateful, 'AWS::Lambda::Function').filter(([, fn]) =>
        String(fn.Properties?.Description).includes('key set'),
      ),
    ).toEqual([]);
    expect(keySetParameterValue(app)).toBe('{"keys":[]}');
    expect(
      [...keySetVariables(app)]
        .filter(([, parameter]) => parameter)
        .map(([id]) => id)
        .sort(),
    ).toEqual(
      routeTable
        .filter((route) => readsConsoleTokens(route.operationId))
        .map((route) => route.operationId)
        .sort(),
    );
  });
});
