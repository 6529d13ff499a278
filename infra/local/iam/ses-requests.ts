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
 * SES (API v1, `@aws-sdk/client-ses`) authorizes a send on the sending identity (the From
 * address's own identity when that is verified, else its domain's; or the SourceArn a delegated
 * sender names) and, when the send names a configuration set, on that set too: both with the
 * send's own action. Condition keys: ses:FromAddress (the bare address), ses:FromDisplayName,
 * ses:Recipients (every To, Cc and Bcc address), ses:FeedbackAddress (the Return-Path, when
 * given) and ses:ApiVersion. In the SES sandbox each recipient's identity is authorized as well;
 * that is not modelled here (production access is the deployed state).
 */

type Input = Record<string, unknown>;

interface Mailbox {
  address: string;
  displayName?: string;
}

/** `Name <a@b>`, `"Name" <a@b>` or `a@b`. */
function mailbox(value: string): Mailbox {
  const angle = /^(.*)<([^<>]+)>\s*$/.exec(value.trim());
  if (!angle) return { address: value.trim() };
  const name = (angle[1] ?? '').trim().replace(/^"(.*)"$/, '$1');
  return { address: (angle[2] ?? '').trim(), ...(name ? { displayName: name } : {}) };
}

/** Addresses of a header's list (commas outside quotes and angle brackets separate them). */
function mailboxList(value: string): string[] {
  const parts = value.match(/(?:"[^"]*"|<[^>]*>|[^,])+/g) ?? [];
  return parts.map((part) => mailbox(part).address).filter((address) => address.includes('@'));
}

const strings = (value: unknown): string[] =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];

const text = (input: Input, member: string): string | undefined =>
  typeof input[member] === 'string' && input[member] !== '' ? (input[member] as string) : undefined;

/** The identity a send from `address` is authorized on, among those verified in the account. */
function identityArn(scope: CallScope, address: string, sourceArn: string | undefined): string {
  if (sourceArn) return sourceArn;
  const verified = new Set(scope.sesIdentities.map((identity) => identity.toLowerCase()));
  const domain = address.split('@')[1] ?? '';
  const identity =
    !verified.has(address.toLowerCase()) && verified.has(domain.toLowerCase()) ? domain : address;
  return regionalArn(scope.account, 'ses', `identity/${identity}`);
}

interface Send {
  action: 'ses:SendEmail' | 'ses:SendRawEmail';
  from: Mailbox;
  recipients: string[];
  returnPath: string | undefined;
  sourceArn: string | undefined;
  configurationSet: string | undefined;
}

function sendRequests(scope: CallScope, send: Send): IamRequest[] {
  const context = definedKeys({
    'ses:FromAddress': send.from.address,
    'ses:FromDisplayName': send.from.displayName,
    'ses:Recipients': [...new Set(send.recipients)],
    'ses:FeedbackAddress': send.returnPath,
    'ses:ApiVersion': '1',
  });
  const requests: IamRequest[] = [
    { action: send.action, resource: identityArn(scope, send.from.address, send.sourceArn), context },
  ];
  if (send.configurationSet) {
    requests.push({
      action: send.action,
      resource: regionalArn(scope.account, 'ses', `configuration-set/${send.configurationSet}`),
      context,
    });
  }
  return requests;
}

function sendEmail(scope: CallScope, call: SdkCall, input: Input): IamRequest[] {
  const source = text(input, 'Source');
  if (!source) throw new MalformedCallError(`${call.commandName} has no Source`);
  const destination = (input.Destination ?? {}) as Input;
  return sendRequests(scope, {
    action: 'ses:SendEmail',
    from: mailbox(source),
    recipients: ['ToAddresses', 'CcAddresses', 'BccAddresses'].flatMap((list) =>
      strings(destination[list]).map((address) => mailbox(address).address),
    ),
    returnPath: text(input, 'ReturnPath'),
    sourceArn: text(input, 'SourceArn'),
    configurationSet: text(input, 'ConfigurationSetName'),
  });
}

/** The header section of a raw message, unfolded, by lower-case name (the first of each). */
function rawHeaders(data: unknown): Map<string, string> {
  const bytes = data instanceof Uint8Array ? data : typeof data === 'string' ? Buffer.from(data) : undefined;
  const head = bytes
    ? Buffer.from(bytes)
        .toString('utf8')
        .split(/\r?\n\r?\n/)[0]
    : '';
  const headers = new Map<string, string>();
  for (const line of (head ?? '').replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon <= 0) continue;
    const name = line.slice(0, colon).trim().toLowerCase();
    if (!headers.has(name)) headers.set(name, line.slice(colon + 1).trim());
  }
  return headers;
}

/** SendRawEmail: Source and Destinations when given, else the message's own headers. */
function sendRawEmail(scope: CallScope, call: SdkCall, input: Input): IamRequest[] {
  const headers = rawHeaders((input.RawMessage as Input | undefined)?.Data);
  const source = text(input, 'Source') ?? headers.get('from');
  if (!source) throw new MalformedCallError(`${call.commandName} has no Source and its message no From`);
  const destinations = strings(input.Destinations);
  return sendRequests(scope, {
    action: 'ses:SendRawEmail',
    from: mailbox(source),
    recipients:
      destinations.length > 0
        ? destinations.map((address) => mailbox(address).address)
        : ['to', 'cc', 'bcc'].flatMap((name) => mailboxList(headers.get(name) ?? '')),
    returnPath: text(input, 'ReturnPath') ?? headers.get('return-path')?.replace(/^<|>$/g, ''),
    sourceArn: text(input, 'SourceArn') ?? text(input, 'FromArn') ?? headers.get('x-ses-source-arn'),
    configurationSet: text(input, 'ConfigurationSetName') ?? headers.get('x-ses-configuration-set'),
  });
}

const SES_COMMANDS: Record<string, (scope: CallScope, call: SdkCall, input: Input) => IamRequest[]> = {
  SendEmailCommand: sendEmail,
  SendRawEmailCommand: sendRawEmail,
};

/** The SES commands mapped here. */
export const SES_COMMAND_NAMES = Object.keys(SES_COMMANDS);

/** The authorizations of one SES (v1) call, or undefined for a command not mapped. */
export function sesRequests(call: SdkCall, scope: CallScope): IamRequest[] | undefined {
  return SES_COMMANDS[call.commandName]?.(scope, call, inputRecord(call));
}
