/**
 * What DynamoDB's condition keys need from a request's expressions: the top-level attribute names a
 * projection or an update names (dynamodb:Attributes) and the partition key value a key condition
 * fixes (dynamodb:LeadingKeys). Names may be placeholders (`#n`, resolved through
 * ExpressionAttributeNames); values are placeholders (`:v`, resolved through
 * ExpressionAttributeValues), plain or marshalled.
 */

type Names = Record<string, string> | undefined;

/** A key's value as the condition key sees it: the string form of an S, N or B value. */
export function attributeValueString(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint') return String(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('base64');
  if (value !== null && typeof value === 'object') {
    const marshalled = value as { S?: unknown; N?: unknown; B?: unknown; value?: unknown };
    if (typeof marshalled.S === 'string') return marshalled.S;
    if (typeof marshalled.N === 'string') return marshalled.N;
    if (marshalled.B instanceof Uint8Array) return Buffer.from(marshalled.B).toString('base64');
    // lib-dynamodb's NumberValue keeps a number's exact text.
    if (typeof marshalled.value === 'string') return marshalled.value;
  }
  return undefined;
}

/** `#n` through ExpressionAttributeNames; a plain name as it is. */
const resolveName = (token: string, names: Names): string =>
  token.startsWith('#') ? (names?.[token] ?? token) : token;

/** The top-level attribute of a document path (`a.b[2]` → `a`, `#n.x` → what `#n` stands for). */
const topLevel = (path: string, names: Names): string | undefined => {
  const head = path.trim().split(/[.[]/)[0]?.trim();
  return head ? resolveName(head, names) : undefined;
};

/** Split at commas outside parentheses (a function's arguments hold commas too). */
function splitTopLevel(text: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let index = 0; index < text.length; index++) {
    const char = text[index];
    if (char === '(') depth++;
    else if (char === ')') depth--;
    else if (char === ',' && depth === 0) {
      parts.push(text.slice(start, index));
      start = index + 1;
    }
  }
  parts.push(text.slice(start));
  return parts.map((part) => part.trim()).filter((part) => part !== '');
}

/** The top-level attributes a ProjectionExpression (or the legacy AttributesToGet) names. */
export function projectedAttributes(input: {
  ProjectionExpression?: unknown;
  AttributesToGet?: unknown;
  ExpressionAttributeNames?: unknown;
}): string[] | undefined {
  const names = input.ExpressionAttributeNames as Names;
  if (typeof input.ProjectionExpression === 'string') {
    return unique(splitTopLevel(input.ProjectionExpression).flatMap((path) => topLevel(path, names) ?? []));
  }
  if (Array.isArray(input.AttributesToGet)) return unique(input.AttributesToGet.map(String));
  return undefined;
}

const UPDATE_CLAUSE = /\b(SET|REMOVE|ADD|DELETE)\b/gi;

/** The top-level attributes an UpdateExpression (or the legacy AttributeUpdates) writes. */
export function updatedAttributes(input: {
  UpdateExpression?: unknown;
  AttributeUpdates?: unknown;
  ExpressionAttributeNames?: unknown;
}): string[] {
  const names = input.ExpressionAttributeNames as Names;
  if (typeof input.UpdateExpression === 'string') {
    const expression = input.UpdateExpression;
    const clauses = [...expression.matchAll(UPDATE_CLAUSE)];
    const attributes = clauses.flatMap((clause, index) => {
      const start = (clause.index ?? 0) + clause[0].length;
      const end = clauses[index + 1]?.index ?? expression.length;
      return splitTopLevel(expression.slice(start, end)).flatMap((action) => {
        // SET path = value; REMOVE path; ADD path value; DELETE path value: the path comes first.
        const path = action.split(/\s*=\s*|\s+/)[0] ?? '';
        return topLevel(path, names) ?? [];
      });
    });
    return unique(attributes);
  }
  if (input.AttributeUpdates !== null && typeof input.AttributeUpdates === 'object') {
    return Object.keys(input.AttributeUpdates);
  }
  return [];
}

/**
 * The partition key value a Query's key condition fixes (`pk = :v`, either way round, or the
 * legacy KeyConditions' EQ), as a string; undefined when it fixes none it can read.
 */
export function keyConditionValue(
  input: {
    KeyConditionExpression?: unknown;
    KeyConditions?: unknown;
    ExpressionAttributeNames?: unknown;
    ExpressionAttributeValues?: unknown;
  },
  partitionKey: string,
): string | undefined {
  const names = input.ExpressionAttributeNames as Names;
  const values = (input.ExpressionAttributeValues ?? {}) as Record<string, unknown>;
  if (typeof input.KeyConditionExpression === 'string') {
    const operand = /[#:]?[A-Za-z0-9_]+/.source;
    const equality = new RegExp(`(${operand})\\s*=\\s*(${operand})`, 'g');
    for (const [, left = '', right = ''] of input.KeyConditionExpression.matchAll(equality)) {
      const [name, value] = left.startsWith(':') ? [right, left] : [left, right];
      if (value.startsWith(':') && resolveName(name, names) === partitionKey) {
        return attributeValueString(values[value]);
      }
    }
    return undefined;
  }
  const legacy = (input.KeyConditions as Record<string, { AttributeValueList?: unknown[] }> | undefined)?.[
    partitionKey
  ];
  return legacy ? attributeValueString(legacy.AttributeValueList?.[0]) : undefined;
}

const unique = (values: string[]): string[] => [...new Set(values)];
