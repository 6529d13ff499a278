import type { Template } from 'aws-cdk-lib/assertions';
import { beforeAll, describe, expect, it } from 'vitest';
import { routeTable } from '#lib/routes/route-table.ts';
import { parameterName } from '../../infra/parameters.ts';
import { type Json, synthesize } from '../support/cdk-app.ts';
import { deployedValues, evaluate } from '../support/template-values.ts';

/** Synthesizing the whole app takes ~10 s alone, more on a busy machine. */
const SYNTH_TIMEOUT = 180_000;
const STAGE = 'dev';

type Synth = ReturnType<typeof synthesize>;

const tokenRoute = routeTable.find((route) => route.operationId === 'issueOAuthToken');
const TOKEN_FUNCTION = `${tokenRoute?.method} ${tokenRoute?.path}`;

/** Every resource of every stack, with its stack's template. */
const everyResource = (app: Synth) =>
  [...app.templates.values()].flatMap((template) =>
    Object.entries<Json>(template.toJSON().Resources).map(([id, resource]) => ({ template, id, resource })),
  );

/** A function's role's policy statements, from its own stack. */
function statementsOf(template: Template, fn: Json): Json[] {
  const roleId = fn.Properties.Role['Fn::GetAtt'][0];
  return Object.values<Json>(template.toJSON().Resources)
    .filter(
      (resource) =>
        resource.Type === 'AWS::IAM::Policy' &&
        resource.Properties.Roles.some((role: Json) => role.Ref === roleId),
    )
    .flatMap((policy) => policy.Properties.PolicyDocument.Statement);
}

/** Every IAM action a resource names, in any policy document it holds (a policy, a role's inline ones). */
function actionsIn(value: Json): string[] {
  if (Array.isArray(value)) return value.flatMap(actionsIn);
  if (value === null || typeof value !== 'object') return [];
  return Object.entries<Json>(value).flatMap(([key, item]) =>
    key === 'Action' || key === 'NotAction' ? [item].flat().map(String) : actionsIn(item),
  );
}

const mentionsCognitoActions = (resource: Json) =>
  actionsIn(resource).some((action) => action.startsWith('cognito-idp:'));

describe("the token endpoint's account check, on a stage with its own user pool", () => {
  let app: Synth;
  let token: { template: Template; id: string; resource: Json };

  beforeAll(() => {
    app = synthesize();
    const found = everyResource(app).find(
      ({ resource }) =>
        resource.Type === 'AWS::Lambda::Function' && resource.Properties.Description === TOKEN_FUNCTION,
    );
    if (!found) throw new Error(`no function ${TOKEN_FUNCTION}`);
    token = found;
  }, SYNTH_TIMEOUT);

  it("lets the token function's role call cognito-idp:AdminGetUser on exactly the stage's pool, and names the pool in its environment", () => {
    // The stateful stack publishes the pool it holds.
    const stateful = app.template('-Stateful');
    const pools = Object.keys(stateful.findResources('AWS::Cognito::UserPool'));
    expect(pools).toHaveLength(1);
    const published = Object.values<Json>(stateful.findResources('AWS::SSM::Parameter')).map(
      (parameter) => parameter.Properties,
    );
    expect(published).toContainEqual(
      expect.objectContaining({
        Name: parameterName(STAGE, 'user-pool-arn'),
        Value: { 'Fn::GetAtt': [pools[0], 'Arn'] },
      }),
    );
    expect(published).toContainEqual(
      expect.objectContaining({ Name: parameterName(STAGE, 'user-pool-id'), Value: { Ref: pools[0] } }),
    );

    // The token function reads them at its deployment.
    const values = deployedValues(token.template, STAGE, {
      'user-pool-arn': 'arn:aws:cognito-idp:eu-west-1:123456789012:userpool/eu-west-1_Pool',
      'user-pool-id': 'eu-west-1_Pool',
    });
    const cognito = statementsOf(token.template, token.resource).filter(mentionsCognitoActions);
    expect(evaluate(cognito, values)).toEqual([
      {
        Action: 'cognito-idp:AdminGetUser',
        Effect: 'Allow',
        Resource: 'arn:aws:cognito-idp:eu-west-1:123456789012:userpool/eu-west-1_Pool',
      },
    ]);
    expect(evaluate(token.resource.Properties.Environment.Variables.CONSOLE_USER_POOL_ID, values)).toBe(
      'eu-west-1_Pool',
    );
  });

  it('gives no other function, role or policy a Cognito action, and no other function the pool', () => {
    const tokenPolicies = new Set(
      Object.entries<Json>(token.template.toJSON().Resources)
        .filter(
          ([, resource]) =>
            resource.Type === 'AWS::IAM::Policy' &&
            resource.Properties.Roles.some(
              (role: Json) => role.Ref === token.resource.Properties.Role['Fn::GetAtt'][0],
            ),
        )
        .map(([id]) => id),
    );
    const others = everyResource(app).filter(
      ({ template, id }) => !(template === token.template && (tokenPolicies.has(id) || id === token.id)),
    );

    expect(others.filter(({ resource }) => mentionsCognitoActions(resource)).map(({ id }) => id)).toEqual([]);
    expect(
      others
        .filter(({ resource }) => resource.Properties?.Environment?.Variables?.CONSOLE_USER_POOL_ID)
        .map(({ id }) => id),
    ).toEqual([]);
  });
});

describe("the token endpoint's account check, with another issuer", () => {
  let app: Synth;

  beforeAll(() => {
    app = synthesize({ issuer: 'https://login.customer.test', issuerAudience: 'console' });
  }, SYNTH_TIMEOUT);

  it('has no pool to ask: no Cognito action anywhere, no pool in any environment, no pool parameter', () => {
    const resources = everyResource(app);
    expect(resources.filter(({ resource }) => resource.Type === 'AWS::Cognito::UserPool')).toEqual([]);
    expect(resources.filter(({ resource }) => mentionsCognitoActions(resource)).map(({ id }) => id)).toEqual(
      [],
    );
    expect(
      resources
        .filter(({ resource }) => resource.Properties?.Environment?.Variables?.CONSOLE_USER_POOL_ID)
        .map(({ id }) => id),
    ).toEqual([]);
    const poolParameters = [parameterName(STAGE, 'user-pool-id'), parameterName(STAGE, 'user-pool-arn')];
    for (const template of app.templates.values()) {
      const { Parameters = {}, Resources } = template.toJSON();
      expect(Object.values<Json>(Parameters).filter((p) => poolParameters.includes(p.Default))).toEqual([]);
      expect(
        Object.values<Json>(Resources).filter((r) => poolParameters.includes(r.Properties?.Name)),
      ).toEqual([]);
    }
  });
});
