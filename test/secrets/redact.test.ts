import { describe, expect, it } from 'vitest';
import { redact, redactValue, registerSecret, REDACTED } from '../../src/secrets/redact.js';

describe('redact', () => {
  it('replaces a registered value as written, URL-encoded and JSON-escaped', () => {
    registerSecret('s3cr/t "value"+1');
    expect(redact('key=s3cr/t "value"+1;')).toBe(`key=${REDACTED};`);
    expect(redact(`?k=${encodeURIComponent('s3cr/t "value"+1')}`)).toBe(`?k=${REDACTED}`);
    expect(redact(JSON.stringify({ k: 's3cr/t "value"+1' }))).toBe(`{"k":"${REDACTED}"}`);
  });

  it("replaces a secret URL's password, token-like query values and long path segments on their own", () => {
    registerSecret('https://bot:pa%24%24word-77@hooks.example.com/services/T0001/B0002/XXXXXXXXXXXXXXXXXXXXXXXX?access_token=abc123def&format=markdown');
    expect(redact('login with pa$$word-77 failed')).toBe(`login with ${REDACTED} failed`);
    expect(redact('bad token abc123def')).toBe(`bad token ${REDACTED}`);
    expect(redact('unknown hook XXXXXXXXXXXXXXXXXXXXXXXX')).toBe(`unknown hook ${REDACTED}`);
    // Parts that are not credentials stay readable.
    expect(redact('format markdown for bot at hooks.example.com')).toBe('format markdown for bot at hooks.example.com');
  });

  it('removes the credentials of any URL, registered or not', () => {
    expect(redact('GET https://alice:hunter2@db.example/x and postgres://u:p@127.0.0.1:5432/db')).toBe(
      `GET https://${REDACTED}@db.example/x and postgres://${REDACTED}@127.0.0.1:5432/db`,
    );
    expect(redact('mail alice@example.com at https://example.com/a@b')).toBe('mail alice@example.com at https://example.com/a@b');
    expect(redact('https://ghp_0123456789abcdefghij@github.com/o/r.git')).toBe(`https://${REDACTED}@github.com/o/r.git`);
    expect(redact('clone ssh://git@github.com/o/r.git')).toBe('clone ssh://git@github.com/o/r.git');
  });

  it('does not register values too short to be secrets, and leaves undefined and empty text alone', () => {
    registerSecret('abc');
    expect(redact('abc abc')).toBe('abc abc');
    expect(redact(undefined)).toBeUndefined();
    expect(redact('')).toBe('');
  });

  it('redacts every string of a JSON-like value, keys included, and keeps other values', () => {
    registerSecret('TOKEN-deep-55');
    const at = new Date(0);
    expect(redactValue({ a: ['x TOKEN-deep-55', 3, null], b: { 'TOKEN-deep-55': true }, at })).toEqual({
      a: [`x ${REDACTED}`, 3, null],
      b: { [REDACTED]: true },
      at,
    });
  });

  it('stays linear on text built to make a URL scan backtrack', () => {
    const hostile = `${'a.'.repeat(200_000)}://${'b'.repeat(200_000)}`;
    const started = performance.now();
    expect(redact(hostile)).toBe(hostile);
    expect(performance.now() - started).toBeLessThan(2_000);
  });
});
