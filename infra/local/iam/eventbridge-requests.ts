import {
  type CallScope,
  definedKeys,
  type IamRequest,
  inputRecord,
  MalformedCallError,
  regionalArn,
  type SdkCall,
} from './iam-request.ts';

/**
 * EventBridge authorizes PutEvents once per entry, on the bus the entry names (its EventBusName:
 * a bus's name or ARN; the account's `default` bus when it names none), with the entry's own
 * condition keys: events:source and events:detail-type (the Service Authorization Reference lists
 * both for PutEvents), so a policy can allow one source or one type only.
 */

type Input = Record<string, unknown>;

const text = (input: Input, member: string): string | undefined =>
  typeof input[member] === 'string' && input[member] !== '' ? (input[member] as string) : undefined;

/** The ARN of the bus an entry names, in the account: as given when it is an ARN. */
export function eventBusArn(scope: CallScope, busName: string | undefined): string {
  const bus = busName ?? 'default';
  return bus.startsWith('arn:') ? bus : regionalArn(scope.account, 'events', `event-bus/${bus}`);
}

function putEvents(scope: CallScope, call: SdkCall, input: Input): IamRequest[] {
  const entries = input.Entries;
  if (!Array.isArray(entries) || entries.length === 0) {
    throw new MalformedCallError(`${call.clientName} ${call.commandName} has no Entries`);
  }
  return entries.map((entry: Input) => ({
    action: 'events:PutEvents',
    resource: eventBusArn(scope, text(entry ?? {}, 'EventBusName')),
    context: definedKeys({
      'events:source': text(entry ?? {}, 'Source'),
      'events:detail-type': text(entry ?? {}, 'DetailType'),
    }),
  }));
}

const EVENTBRIDGE_COMMANDS: Record<string, (scope: CallScope, call: SdkCall, input: Input) => IamRequest[]> =
  {
    PutEventsCommand: putEvents,
  };

/** The EventBridge commands mapped here. */
export const EVENTBRIDGE_COMMAND_NAMES = Object.keys(EVENTBRIDGE_COMMANDS);

/** The authorizations of one EventBridge call, or undefined for a command not mapped. */
export function eventBridgeRequests(call: SdkCall, scope: CallScope): IamRequest[] | undefined {
  return EVENTBRIDGE_COMMANDS[call.commandName]?.(scope, call, inputRecord(call));
}
