import {
  attributeValueString,
  keyConditionValue,
  projectedAttributes,
  updatedAttributes,
} from './dynamodb-expressions.ts';
import {
  type CallScope,
  definedKeys,
  type IamRequest,
  inputRecord,
  MalformedCallError,
  regionalArn,
  requiredString,
  type SdkCall,
} from './iam-request.ts';

/**
 * DynamoDB's authorizations, as its Service Authorization Reference defines them: an item action
 * on its table's ARN; a Query or Scan of an index on the index's ARN (`table/<t>/index/<i>`); a
 * BatchGetItem or BatchWriteItem as that action on each table it names; a transaction as each
 * item's own action on its own table (ConditionCheck → dynamodb:ConditionCheckItem), there being
 * no IAM action for the transaction itself. Condition keys: dynamodb:LeadingKeys (the partition
 * key values reached), dynamodb:Attributes (the top-level attributes written or projected),
 * dynamodb:Select, dynamodb:ReturnValues, dynamodb:ReturnConsumedCapacity and
 * dynamodb:EnclosingOperation, each where the reference lists it for the action and the request
 * determines it.
 */

type Input = Record<string, unknown>;
type Item = Record<string, unknown>;

/** A table's ARN from the TableName a request gives (a name, or since 2024 an ARN). */
function tableArn(scope: CallScope, table: string): string {
  return table.startsWith('arn:') ? table : regionalArn(scope.account, 'dynamodb', `table/${table}`);
}

/** The table's name, for looking up its key schema, from a name or an ARN. */
const tableName = (table: string): string =>
  table.startsWith('arn:') ? (table.split('/')[1] ?? table) : table;

function leadingKey(scope: CallScope, table: string, item: unknown): string | undefined {
  const key = scope.partitionKeyOf(tableName(table));
  if (key === undefined || item === null || typeof item !== 'object') return undefined;
  return attributeValueString((item as Item)[key]);
}

const leadingKeys = (scope: CallScope, table: string, items: unknown[]): string[] => [
  ...new Set(items.flatMap((item) => leadingKey(scope, table, item) ?? [])),
];

const names = (item: unknown): string[] =>
  item !== null && typeof item === 'object' ? Object.keys(item as Item) : [];

const stringMember = (input: Input, member: string): string | undefined =>
  typeof input[member] === 'string' ? (input[member] as string) : undefined;

/** Select as the request sets it, or as DynamoDB fixes it when a projection is given. */
const selectOf = (input: Input): string | undefined =>
  stringMember(input, 'Select') ?? (projectedAttributes(input) ? 'SPECIFIC_ATTRIBUTES' : undefined);

type ItemAction = 'GetItem' | 'PutItem' | 'UpdateItem' | 'DeleteItem' | 'ConditionCheckItem';

/** One item action: what it writes or reads, on which partition. */
function itemRequest(
  scope: CallScope,
  call: SdkCall,
  action: ItemAction,
  item: Input,
  enclosing?: 'TransactWriteItems' | 'TransactGetItems',
  consumedCapacity = stringMember(item, 'ReturnConsumedCapacity'),
): IamRequest {
  const table = requiredString(call, item, 'TableName');
  const key = action === 'PutItem' ? item.Item : item.Key;
  if (key === null || typeof key !== 'object') {
    throw new MalformedCallError(
      `${call.commandName} ${action} on ${table} has no ${action === 'PutItem' ? 'Item' : 'Key'}`,
    );
  }
  const attributes: Record<ItemAction, string[] | undefined> = {
    GetItem: projectedAttributes(item),
    PutItem: names(key),
    UpdateItem: [...new Set([...names(key), ...updatedAttributes(item)])],
    DeleteItem: names(key),
    ConditionCheckItem: names(key),
  };
  return {
    action: `dynamodb:${action}`,
    resource: tableArn(scope, table),
    context: definedKeys({
      'dynamodb:LeadingKeys': leadingKeys(scope, table, [key]),
      'dynamodb:Attributes': attributes[action],
      'dynamodb:Select': action === 'GetItem' ? selectOf(item) : undefined,
      'dynamodb:ReturnValues': action === 'GetItem' ? undefined : stringMember(item, 'ReturnValues'),
      'dynamodb:ReturnConsumedCapacity': consumedCapacity,
      // The reference lists the enclosing operation for the item actions, not for ConditionCheckItem.
      'dynamodb:EnclosingOperation': action === 'ConditionCheckItem' ? undefined : enclosing,
    }),
  };
}

/** A Query or a Scan: on the index's ARN when it reads an index. */
function readRequest(scope: CallScope, call: SdkCall, action: 'Query' | 'Scan', input: Input): IamRequest {
  const table = requiredString(call, input, 'TableName');
  const index = stringMember(input, 'IndexName');
  const partitionKey = scope.partitionKeyOf(tableName(table), index);
  const leading =
    action === 'Query' && partitionKey !== undefined ? keyConditionValue(input, partitionKey) : undefined;
  return {
    action: `dynamodb:${action}`,
    resource: index ? `${tableArn(scope, table)}/index/${index}` : tableArn(scope, table),
    context: definedKeys({
      'dynamodb:LeadingKeys': leading === undefined ? undefined : [leading],
      'dynamodb:Attributes': projectedAttributes(input),
      'dynamodb:Select': selectOf(input),
      'dynamodb:ReturnConsumedCapacity': stringMember(input, 'ReturnConsumedCapacity'),
    }),
  };
}

function requestItems(call: SdkCall, input: Input): [string, unknown][] {
  const items = input.RequestItems;
  if (items === null || typeof items !== 'object' || Object.keys(items).length === 0) {
    throw new MalformedCallError(`${call.commandName} has no RequestItems`);
  }
  return Object.entries(items as Record<string, unknown>);
}

/** BatchGetItem: dynamodb:BatchGetItem on each table, with the partitions it reads there. */
function batchGet(scope: CallScope, call: SdkCall, input: Input): IamRequest[] {
  return requestItems(call, input).map(([table, request]) => {
    const reads = (request ?? {}) as Input;
    return {
      action: 'dynamodb:BatchGetItem',
      resource: tableArn(scope, table),
      context: definedKeys({
        'dynamodb:LeadingKeys': leadingKeys(scope, table, (reads.Keys as unknown[]) ?? []),
        'dynamodb:Attributes': projectedAttributes(reads),
        'dynamodb:Select': selectOf(reads),
        'dynamodb:ReturnConsumedCapacity': stringMember(input, 'ReturnConsumedCapacity'),
      }),
    };
  });
}

/** BatchWriteItem: dynamodb:BatchWriteItem on each table (not PutItem or DeleteItem). */
function batchWrite(scope: CallScope, call: SdkCall, input: Input): IamRequest[] {
  return requestItems(call, input).map(([table, writes]) => {
    const items = ((writes as unknown[]) ?? []).map((write) => {
      const { PutRequest, DeleteRequest } = (write ?? {}) as {
        PutRequest?: { Item?: unknown };
        DeleteRequest?: { Key?: unknown };
      };
      return PutRequest?.Item ?? DeleteRequest?.Key;
    });
    return {
      action: 'dynamodb:BatchWriteItem',
      resource: tableArn(scope, table),
      context: definedKeys({
        'dynamodb:LeadingKeys': leadingKeys(scope, table, items),
        'dynamodb:Attributes': [...new Set(items.flatMap(names))],
        'dynamodb:ReturnConsumedCapacity': stringMember(input, 'ReturnConsumedCapacity'),
      }),
    };
  });
}

const TRANSACT_WRITE_ACTIONS = {
  ConditionCheck: 'ConditionCheckItem',
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
} as const satisfies Record<string, ItemAction>;

function transactItems(call: SdkCall, input: Input): Input[] {
  const items = input.TransactItems;
  if (!Array.isArray(items) || items.length === 0) {
    throw new MalformedCallError(`${call.commandName} has no TransactItems`);
  }
  return items as Input[];
}

/** TransactWriteItems: each item's own action on its own table. */
function transactWrite(scope: CallScope, call: SdkCall, input: Input): IamRequest[] {
  const capacity = stringMember(input, 'ReturnConsumedCapacity');
  return transactItems(call, input).map((entry) => {
    const kind = (Object.keys(TRANSACT_WRITE_ACTIONS) as (keyof typeof TRANSACT_WRITE_ACTIONS)[]).find(
      (name) => entry[name] !== undefined,
    );
    if (kind === undefined) throw new MalformedCallError(`${call.commandName} has an item of no known kind`);
    const item = entry[kind] as Input;
    return itemRequest(scope, call, TRANSACT_WRITE_ACTIONS[kind], item, 'TransactWriteItems', capacity);
  });
}

/** TransactGetItems: GetItem on each item's table. */
function transactGet(scope: CallScope, call: SdkCall, input: Input): IamRequest[] {
  const capacity = stringMember(input, 'ReturnConsumedCapacity');
  return transactItems(call, input).map((entry) => {
    if (entry.Get === undefined)
      throw new MalformedCallError(`${call.commandName} has an item that is no Get`);
    return itemRequest(scope, call, 'GetItem', entry.Get as Input, 'TransactGetItems', capacity);
  });
}

const DYNAMODB_COMMANDS: Record<string, (scope: CallScope, call: SdkCall, input: Input) => IamRequest[]> = {
  GetItemCommand: (scope, call, input) => [itemRequest(scope, call, 'GetItem', input)],
  PutItemCommand: (scope, call, input) => [itemRequest(scope, call, 'PutItem', input)],
  UpdateItemCommand: (scope, call, input) => [itemRequest(scope, call, 'UpdateItem', input)],
  DeleteItemCommand: (scope, call, input) => [itemRequest(scope, call, 'DeleteItem', input)],
  QueryCommand: (scope, call, input) => [readRequest(scope, call, 'Query', input)],
  ScanCommand: (scope, call, input) => [readRequest(scope, call, 'Scan', input)],
  BatchGetItemCommand: batchGet,
  BatchWriteItemCommand: batchWrite,
  TransactWriteItemsCommand: transactWrite,
  TransactGetItemsCommand: transactGet,
};

/** The DynamoDB commands mapped here. */
export const DYNAMODB_COMMAND_NAMES = Object.keys(DYNAMODB_COMMANDS);

/** The authorizations of one DynamoDB call, or undefined for a command not mapped. */
export function dynamodbRequests(call: SdkCall, scope: CallScope): IamRequest[] | undefined {
  const map = DYNAMODB_COMMANDS[call.commandName];
  return map?.(scope, call, inputRecord(call));
}
