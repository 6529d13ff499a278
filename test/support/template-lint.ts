import { loadAwsServiceSpecSync } from '@aws-cdk/aws-service-spec';
import type { Property, PropertyType, Resource, SpecDatabase } from '@aws-cdk/service-spec-types';
import type { Json } from './cdk-app.ts';
import {
  FUNCTIONS,
  intrinsicName,
  isCustomResource,
  isNoValue,
  isPlainObject,
  kindOf,
  LIST_FUNCTIONS,
  PSEUDO_PARAMETERS,
  RESOURCE_KEYS,
  STRING_FUNCTIONS,
} from './cloudformation-vocabulary.ts';

/**
 * Checks CloudFormation templates against AWS's CloudFormation resource specification (the
 * database CDK generates its L1 constructs from), for the errors cfn-lint reports most:
 *
 * - the resource type exists (cfn-lint E3006) and the resource has only CloudFormation's
 *   resource-level keys (E3001);
 * - every property, nested ones included, is known (E3002) and every required one is present (E3003);
 * - a value has the shape its type asks for (E3012, light): no object or list where a string,
 *   number or boolean goes and no plain value where an object or list goes, with what
 *   CloudFormation coerces accepted (numbers as strings and back, booleans as "true"/"false");
 * - a string or integer whose type lists its allowed values is one of them (E3030);
 * - every `Ref`, `Fn::GetAtt`, `Fn::Sub` variable, `DependsOn` and condition names something the
 *   template has (E1010, E1019, E1020, E3005), and `Fn::GetAtt` an attribute the type has.
 *
 * Intrinsic functions are accepted wherever a value goes; `Fn::If` has both branches checked.
 */

/** One problem, located so a reader can find and fix it. */
export interface Finding {
  readonly stack: string;
  readonly logicalId: string;
  /** The resource's type, or '' for findings outside a resource (outputs, rules). */
  readonly type: string;
  /** Where in the resource, e.g. `Properties.Code.S3Bucket` or `Properties.Tags[0].Key`. */
  readonly path: string;
  readonly message: string;
}

/** A finding that is a gap of the specification, not of the template, with the reason it is. */
export interface SpecGap {
  readonly type: string;
  readonly path: string;
  readonly message: string;
  readonly reason: string;
}

export const formatFinding = (f: Finding): string => `${f.stack}/${f.logicalId}: ${f.path}: ${f.message}`;

/** The specification, loaded once per test file (~0.7 s). */
export const loadSpec = (): SpecDatabase => loadAwsServiceSpecSync();

export function createTemplateLinter(db: SpecDatabase, gaps: readonly SpecGap[] = []) {
  const resourceSpecs = new Map<string, Resource | undefined>();
  const resourceSpec = (type: string): Resource | undefined => {
    if (!resourceSpecs.has(type)) {
      const found = db.lookup('resource', 'cloudFormationType', 'equals', type);
      resourceSpecs.set(type, found[0]);
    }
    return resourceSpecs.get(type);
  };

  const describeType = (type: PropertyType): string => {
    switch (type.type) {
      case 'ref':
        return db.get('typeDefinition', type.reference.$ref).name;
      case 'array':
        return `list of ${describeType(type.element)}`;
      case 'map':
        return `map of ${describeType(type.element)}`;
      case 'union':
        return type.types.map(describeType).join(' | ');
      default:
        return type.type;
    }
  };

  /** Problems of one value against one type, as [path, message] pairs. */
  type Problem = [path: string, message: string];

  const checkValue = (value: Json, type: PropertyType, path: string): Problem[] => {
    const fn = intrinsicName(value);
    if (fn !== undefined) return checkIntrinsicValue(fn, value[fn], type, path);
    switch (type.type) {
      case 'string':
        if (!['string', 'number', 'boolean'].includes(typeof value))
          return [[path, `expects a string, got ${kindOf(value)}`]];
        return type.allowedValues && !type.allowedValues.includes(String(value))
          ? [[path, `${JSON.stringify(value)} is not one of ${type.allowedValues.join(', ')}`]]
          : [];
      case 'date-time':
        return ['string', 'number', 'boolean'].includes(typeof value)
          ? []
          : [[path, `expects a date-time, got ${kindOf(value)}`]];
      case 'number':
      case 'integer': {
        const numeric =
          typeof value === 'number' ||
          (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)));
        const whole = type.type === 'number' || Number.isInteger(Number(value));
        if (!numeric || !whole)
          return [
            [path, `expects ${type.type === 'integer' ? 'an' : 'a'} ${type.type}, got ${kindOf(value)}`],
          ];
        return type.type === 'integer' && type.allowedValues && !type.allowedValues.includes(Number(value))
          ? [[path, `${JSON.stringify(value)} is not one of ${type.allowedValues.join(', ')}`]]
          : [];
      }
      case 'boolean':
        return typeof value === 'boolean' || (typeof value === 'string' && /^(true|false)$/i.test(value))
          ? []
          : [[path, `expects a boolean, got ${kindOf(value)}`]];
      case 'json':
        return [];
      case 'null':
        return value === null ? [] : [[path, `expects null, got ${kindOf(value)}`]];
      case 'tag':
        return checkObject(value, TAG_PROPERTIES, path, 'Tag');
      case 'ref': {
        const definition = db.get('typeDefinition', type.reference.$ref);
        return checkObject(value, definition.properties, path, definition.name);
      }
      case 'array':
        if (!Array.isArray(value)) return [[path, `expects a ${describeType(type)}, got ${kindOf(value)}`]];
        return value.flatMap((element, i) => checkValue(element, type.element, `${path}[${i}]`));
      case 'map':
        if (!isPlainObject(value)) return [[path, `expects a ${describeType(type)}, got ${kindOf(value)}`]];
        return Object.entries(value).flatMap(([key, element]) =>
          checkValue(element, type.element, `${path}.${key}`),
        );
      case 'union':
        return checkUnion(value, type.types, path);
    }
  };

  /** Fine if any member takes the value; otherwise the problems of the member closest in shape. */
  const checkUnion = (value: Json, types: readonly PropertyType[], path: string): Problem[] => {
    const results = types.map((member) => checkValue(value, member, path));
    if (results.some((problems) => problems.length === 0)) return [];
    const shapeOf = (member: PropertyType) =>
      member.type === 'array'
        ? 'list'
        : ['ref', 'tag', 'map', 'json'].includes(member.type)
          ? 'object'
          : 'scalar';
    const valueShape = Array.isArray(value) ? 'list' : isPlainObject(value) ? 'object' : 'scalar';
    const sameShape = types.map(shapeOf).map((shape) => shape === valueShape);
    if (sameShape.filter(Boolean).length === 1) return results[sameShape.indexOf(true)] ?? [];
    return [[path, `expects ${types.map(describeType).join(' or ')}, got ${kindOf(value)}`]];
  };

  const checkIntrinsicValue = (fn: string, args: Json, type: PropertyType, path: string): Problem[] => {
    if (fn === 'Fn::If') {
      if (!Array.isArray(args) || args.length !== 3) return [[path, 'Fn::If takes [condition, then, else]']];
      return [1, 2].flatMap((i) =>
        isNoValue(args[i]) ? [] : checkValue(args[i], type, `${path}.Fn::If[${i}]`),
      );
    }
    const takesString = (t: PropertyType): boolean =>
      ['string', 'date-time', 'number', 'integer', 'boolean', 'json'].includes(t.type) ||
      (t.type === 'union' && t.types.some(takesString));
    const takesList = (t: PropertyType): boolean =>
      t.type === 'array' || t.type === 'json' || (t.type === 'union' && t.types.some(takesList));
    if (STRING_FUNCTIONS.has(fn) && !takesString(type))
      return [[path, `${fn} gives a string where a ${describeType(type)} goes`]];
    if (LIST_FUNCTIONS.has(fn) && !takesList(type))
      return [[path, `${fn} gives a list where a ${describeType(type)} goes`]];
    return [];
  };

  /** A property's current type or one it had before, which CloudFormation still takes. */
  const propertyType = (property: Property): PropertyType =>
    property.previousTypes?.length
      ? { type: 'union', types: [property.type, ...property.previousTypes] }
      : property.type;

  const checkObject = (
    value: Json,
    properties: Record<string, Property>,
    path: string,
    typeName: string,
  ): Problem[] => {
    if (!isPlainObject(value)) return [[path, `expects an object of type ${typeName}, got ${kindOf(value)}`]];
    const problems: Problem[] = [];
    for (const [name, property] of Object.entries(properties)) {
      if (property.required && !(name in value)) problems.push([path, `missing required property ${name}`]);
    }
    for (const [name, propertyValue] of Object.entries(value)) {
      const property = properties[name];
      if (!property) {
        problems.push([
          `${path}.${name}`,
          `unknown property of ${typeName} (known: ${Object.keys(properties).sort().join(', ')})`,
        ]);
        continue;
      }
      problems.push(...checkValue(propertyValue, propertyType(property), `${path}.${name}`));
    }
    return problems;
  };

  const TAG_PROPERTIES: Record<string, Property> = {
    Key: { type: { type: 'string' }, required: true },
    Value: { type: { type: 'string' }, required: true },
  };

  /** Every `Ref`, `Fn::GetAtt`, `Fn::Sub` variable and condition name under `value`. */
  const checkReferences = (value: Json, path: string, template: Json, problems: Problem[]): void => {
    if (Array.isArray(value)) {
      value.forEach((element, i) => {
        checkReferences(element, `${path}[${i}]`, template, problems);
      });
      return;
    }
    if (!isPlainObject(value)) return;
    const resources: Record<string, Json> = template.Resources ?? {};
    const parameters: Record<string, Json> = template.Parameters ?? {};
    const conditions: Record<string, Json> = template.Conditions ?? {};
    const refTarget = (name: Json, where: string) => {
      if (typeof name !== 'string') return;
      if (!(name in resources || name in parameters || PSEUDO_PARAMETERS.has(name)))
        problems.push([
          where,
          `Ref to ${name}, which is no resource, parameter or pseudo parameter of this template`,
        ]);
    };
    const getAttTarget = (logicalId: string, attribute: Json, where: string) => {
      const target = resources[logicalId];
      if (!target) {
        problems.push([where, `Fn::GetAtt of ${logicalId}, which is no resource of this template`]);
        return;
      }
      if (typeof attribute !== 'string' || isCustomResource(target.Type)) return;
      if (target.Type === 'AWS::CloudFormation::Stack' && attribute.startsWith('Outputs.')) return;
      const spec = resourceSpec(target.Type);
      if (spec && !(attribute in spec.attributes))
        problems.push([
          where,
          `Fn::GetAtt ${logicalId}.${attribute}: ${target.Type} has no attribute ${attribute} (it has: ${Object.keys(spec.attributes).sort().join(', ') || 'none'})`,
        ]);
    };
    const fn = intrinsicName(value);
    const args = fn === undefined ? undefined : value[fn];
    const where = `${path}.${fn}`;
    if (fn === 'Ref') refTarget(args, path);
    else if (fn === 'Fn::GetAtt') {
      if (typeof args === 'string') {
        const dot = args.indexOf('.');
        if (dot < 0) problems.push([path, `Fn::GetAtt "${args}" names no attribute`]);
        else getAttTarget(args.slice(0, dot), args.slice(dot + 1), path);
      } else if (Array.isArray(args) && args.length === 2 && typeof args[0] === 'string') {
        getAttTarget(args[0], args[1], path);
      } else problems.push([path, 'Fn::GetAtt takes [logicalId, attribute] or "logicalId.attribute"']);
    } else if (fn === 'Fn::Sub') {
      const [text, variables] =
        typeof args === 'string' ? [args, {}] : Array.isArray(args) ? args : [undefined, {}];
      if (typeof text === 'string') {
        for (const [, name] of text.matchAll(/\$\{(?!!)([^}]*)\}/g)) {
          const variable = (name ?? '').trim();
          if (isPlainObject(variables) && variable in variables) continue;
          const dot = variable.indexOf('.');
          if (dot < 0 || PSEUDO_PARAMETERS.has(variable)) refTarget(variable, where);
          else getAttTarget(variable.slice(0, dot), variable.slice(dot + 1), where);
        }
      }
    } else if (fn === 'Fn::If') {
      const name = Array.isArray(args) ? args[0] : undefined;
      if (typeof name === 'string' && !(name in conditions))
        problems.push([path, `Fn::If names ${name}, which is no condition of this template`]);
    } else if (fn !== undefined && !FUNCTIONS.has(fn)) {
      problems.push([path, `unknown function ${fn}`]);
    }
    for (const [key, element] of Object.entries(value))
      checkReferences(element, `${path}.${key}`, template, problems);
  };

  const checkResource = (resource: Json, template: Json): Problem[] => {
    if (!isPlainObject(resource)) return [['', 'a resource must be an object']];
    const problems: Problem[] = [];
    for (const key of Object.keys(resource)) {
      if (!RESOURCE_KEYS.has(key))
        problems.push([key, `unknown resource attribute (known: ${[...RESOURCE_KEYS].join(', ')})`]);
    }
    const type = resource.Type;
    if (typeof type !== 'string') return [...problems, ['Type', 'missing or not a string']];
    const properties = resource.Properties ?? {};
    if (isCustomResource(type)) {
      if (!isPlainObject(properties) || !('ServiceToken' in properties))
        problems.push(['Properties', 'missing required property ServiceToken']);
    } else if (type !== 'AWS::CDK::Metadata') {
      const spec = resourceSpec(type);
      if (!spec) problems.push(['Type', `${type} is no resource type of the CloudFormation specification`]);
      else problems.push(...checkObject(properties, spec.properties, 'Properties', type));
    }
    const dependsOn = resource.DependsOn;
    for (const target of dependsOn === undefined ? [] : Array.isArray(dependsOn) ? dependsOn : [dependsOn]) {
      if (typeof target !== 'string' || !(target in (template.Resources ?? {})))
        problems.push(['DependsOn', `${JSON.stringify(target)} is no resource of this template`]);
    }
    if (resource.Condition !== undefined && !(resource.Condition in (template.Conditions ?? {})))
      problems.push(['Condition', `${resource.Condition} is no condition of this template`]);
    checkReferences(resource, '', template, problems);
    return problems;
  };

  const isGap = (finding: Finding) =>
    gaps.some(
      (gap) =>
        gap.type === finding.type && gap.path === finding.path && finding.message.includes(gap.message),
    );

  /** Every finding of one stack's template, minus the listed specification gaps. */
  return (stack: string, template: Json): Finding[] => {
    const findings: Finding[] = [];
    for (const [logicalId, resource] of Object.entries<Json>(template.Resources ?? {})) {
      for (const [path, message] of checkResource(resource, template)) {
        findings.push({
          stack,
          logicalId,
          type: resource?.Type ?? '',
          path: path.replace(/^\./, ''),
          message,
        });
      }
    }
    for (const section of ['Outputs', 'Conditions', 'Rules'] as const) {
      for (const [name, entry] of Object.entries<Json>(template[section] ?? {})) {
        const problems: Problem[] = [];
        checkReferences(entry, '', template, problems);
        for (const [path, message] of problems)
          findings.push({
            stack,
            logicalId: `${section}.${name}`,
            type: '',
            path: path.replace(/^\./, ''),
            message,
          });
      }
    }
    return findings.filter((finding) => !isGap(finding));
  };
}
