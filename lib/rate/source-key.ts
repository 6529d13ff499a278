import { isIPv6 } from 'node:net';

/**
 * The key a per-source limit counts a caller under. An IPv4 address is one key. An IPv6 address
 * is keyed by its /64: a host (or a customer's line) is routinely given a whole /64, so keying by
 * the full address would hand one caller 2^64 budgets. An IPv4-mapped IPv6 address (how a
 * dual-stack socket writes an IPv4 peer) is keyed as the IPv4 address it carries.
 */
export function sourceKey(sourceIp: string): string {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(sourceIp);
  if (mapped?.[1]) return mapped[1];
  if (!isIPv6(sourceIp)) return sourceIp;
  return `${expandIPv6(sourceIp).slice(0, 4).join(':')}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, lower-case without leading zeros. */
function expandIPv6(address: string): string[] {
  const withoutZone = address.split('%')[0] ?? address;
  const [head = '', tail] = withoutZone.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  // An embedded IPv4 tail (a.b.c.d) stands for the last two groups; only the /64 matters here,
  // so any group count past the first four is fine as long as the zeros are filled in.
  const missing = Math.max(0, 8 - left.length - right.length);
  return [...left, ...Array<string>(missing).fill('0'), ...right].map((group) =>
    group.includes('.') ? group : Number.parseInt(group, 16).toString(16),
  );
}
