import { isIPv4, isIPv6 } from 'node:net';

/**
 * Which addresses the `http` tool refuses unless `http.allowPrivate` is set: everything that is not a
 * public unicast address — loopback, private (RFC 1918, unique local), link-local (cloud metadata at
 * 169.254.169.254), carrier-grade NAT, unspecified, multicast, reserved — in IPv4 and IPv6, including
 * IPv6 forms that carry an IPv4 address (IPv4-mapped `::ffff:a.b.c.d`, IPv4-compatible, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16`), which are judged by the IPv4 address they carry.
 */

/** [first address, prefix length, what it is] */
const IPV4_RANGES: ReadonlyArray<readonly [string, number, string]> = [
  ['0.0.0.0', 8, 'an unspecified ("this network") address'],
  ['10.0.0.0', 8, 'a private address'],
  ['100.64.0.0', 10, 'a carrier-grade NAT address'],
  ['127.0.0.0', 8, 'a loopback address'],
  ['169.254.0.0', 16, 'a link-local address'],
  ['172.16.0.0', 12, 'a private address'],
  ['192.0.0.0', 24, 'an IETF protocol address'],
  ['192.168.0.0', 16, 'a private address'],
  ['198.18.0.0', 15, 'a benchmarking address'],
  ['224.0.0.0', 4, 'a multicast address'],
  ['240.0.0.0', 4, 'a reserved address'],
];

/**
 * What kind of non-public address `ip` is (`"a loopback address"`), or undefined for a public one.
 * Anything that is not an IP address at all is refused too.
 */
export function nonPublicAddress(ip: string): string | undefined {
  const address = ip.startsWith('[') && ip.endsWith(']') ? ip.slice(1, -1) : ip;
  if (isIPv4(address)) return ipv4Kind(ipv4Number(address));
  if (isIPv6(address)) return ipv6Kind(ipv6Words(address));
  return 'not an IP address';
}

function ipv4Kind(value: number): string | undefined {
  for (const [first, bits, kind] of IPV4_RANGES) {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    if ((value & mask) >>> 0 === ipv4Number(first)) return kind;
  }
  return undefined;
}

function ipv6Kind(w: number[]): string | undefined {
  const [w0 = 0, w1 = 0, w2 = 0, w3 = 0, w4 = 0, w5 = 0, w6 = 0, w7 = 0] = w;
  const embedded = ((w6 << 16) | w7) >>> 0;
  const zeroPrefix = w0 === 0 && w1 === 0 && w2 === 0 && w3 === 0 && w4 === 0;
  if (zeroPrefix && w5 === 0 && w6 === 0 && w7 === 0) return 'an unspecified address';
  if (zeroPrefix && w5 === 0 && w6 === 0 && w7 === 1) return 'a loopback address';
  // IPv4-mapped (::ffff:a.b.c.d) and IPv4-compatible (::a.b.c.d): judged by the IPv4 address.
  if (zeroPrefix && (w5 === 0xffff || w5 === 0)) return withEmbedded(embedded);
  // NAT64 (64:ff9b::a.b.c.d).
  if (w0 === 0x64 && w1 === 0xff9b && w2 === 0 && w3 === 0 && w4 === 0 && w5 === 0) return withEmbedded(embedded);
  // 6to4 (2002:aabb:ccdd::): the IPv4 address is in the second and third words.
  if (w0 === 0x2002) return withEmbedded(((w1 << 16) | w2) >>> 0);
  if ((w0 & 0xfe00) === 0xfc00) return 'a private (unique local) address';
  if ((w0 & 0xffc0) === 0xfe80) return 'a link-local address';
  if ((w0 & 0xffc0) === 0xfec0) return 'a site-local address';
  if ((w0 & 0xff00) === 0xff00) return 'a multicast address';
  return undefined;
}

function withEmbedded(ipv4: number): string | undefined {
  const kind = ipv4Kind(ipv4);
  return kind === undefined ? undefined : `${kind} (inside an IPv6 address)`;
}

function ipv4Number(address: string): number {
  return address.split('.').reduce((n, part) => ((n << 8) | Number(part)) >>> 0, 0);
}

/** The eight 16-bit words of a valid IPv6 address (`::` expanded, a trailing dotted IPv4 read as two words). */
function ipv6Words(address: string): number[] {
  let text = address.split('%')[0] ?? address;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1]) {
    const v4 = ipv4Number(dotted[1]);
    text = `${text.slice(0, -dotted[1].length)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headWords = head === '' ? [] : head.split(':');
  const tailWords = tail === undefined || tail === '' ? [] : tail.split(':');
  const missing = 8 - headWords.length - tailWords.length;
  return [...headWords, ...Array<string>(tail === undefined ? 0 : missing).fill('0'), ...tailWords].map((w) => parseInt(w, 16));
}
