import { describe, expect, it } from 'vitest';
import { nonPublicAddress } from '../../src/tools/builtin/http-address.js';

describe('nonPublicAddress', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.0.9', 'a loopback address'],
    ['10.1.2.3', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['169.254.169.254', 'a link-local address'],
    ['100.64.0.1', 'a carrier-grade NAT address'],
    ['0.0.0.0', 'an unspecified ("this network") address'],
    ['224.0.0.1', 'a multicast address'],
    ['255.255.255.255', 'a reserved address'],
    ['::1', 'a loopback address'],
    ['::', 'an unspecified address'],
    ['fc00::1', 'a private (unique local) address'],
    ['fd12:3456::1', 'a private (unique local) address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['ff02::1', 'a multicast address'],
    ['::ffff:127.0.0.1', 'a loopback address (inside an IPv6 address)'],
    ['::ffff:7f00:1', 'a loopback address (inside an IPv6 address)'],
    ['[::ffff:a9fe:a9fe]', 'a link-local address (inside an IPv6 address)'],
    ['64:ff9b::10.0.0.1', 'a private address (inside an IPv6 address)'],
    ['2002:c0a8:0101::1', 'a private address (inside an IPv6 address)'],
    ['not-an-ip', 'not an IP address'],
  ])('%s is %s', (ip, kind) => {
    expect(nonPublicAddress(ip)).toBe(kind);
  });

  it.each(['8.8.8.8', '172.32.0.1', '192.169.0.1', '100.128.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::8.8.8.8', '2002:0808:0808::1'])(
    '%s is public',
    (ip) => {
      expect(nonPublicAddress(ip)).toBeUndefined();
    },
  );
});
