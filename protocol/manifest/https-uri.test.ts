import { describe, expect, it } from 'vitest';
import { httpsUriViolation, type HttpsUriRule } from './https-uri.ts';

describe('httpsUriViolation (#manifest homepage and avatarUrl)', () => {
  it.each([
    'https://example.com',
    'https://example.com/',
    'https://example.com/a/b?q=1&r=%2F',
    'https://example.com:443/avatar.png',
    // An empty port is RFC 3986 syntax; RFC 9110 only says producers SHOULD omit it.
    'https://example.com:/',
    'https://EXAMPLE.com/Path',
    'https://192.0.2.1/',
    'https://[2001:db8::1]:8443/x',
    'https://[::ffff:192.0.2.1]/',
    'https://[v1.fe80::a+en1]/',
    'https://xn--bcher-kva.example/~user/a;b=c/@d:e',
    'https://example.com/%E2%82%AC',
    "https://example.com/!$&'()*+,;=",
    'https://example.com?query/with?slashes',
  ])('accepts %s', (uri) => {
    expect(httpsUriViolation(uri)).toBeUndefined();
  });

  it.each<[string, HttpsUriRule]>([
    ['HTTPS://example.com/', 'scheme-not-lowercase'],
    ['Https://example.com/', 'scheme-not-lowercase'],
    ['http://example.com/', 'scheme-not-https'],
    ['wss://example.com/', 'scheme-not-https'],
    ['//example.com/', 'not-absolute'],
    ['/avatar.png', 'not-absolute'],
    ['example.com', 'not-absolute'],
    ['1https://example.com', 'bad-scheme'],
    ['https:/x', 'no-authority'],
    ['https:example.com', 'no-authority'],
    ['https:', 'no-authority'],
    ['https:///path', 'empty-host'],
    ['https://', 'empty-host'],
    ['https://:443/', 'empty-host'],
    ['https://user@example.com/', 'userinfo'],
    ['https://user:pass@example.com/', 'userinfo'],
    ['https://@example.com/', 'userinfo'],
    ['https://a@b@example.com/', 'invalid-character'],
    ['https://example.com:8080x/', 'bad-port'],
    ['https://example.com:-1/', 'bad-port'],
    ['https://example.com:65536/', 'port-range'],
    ['https://example.com:99999999999999999999/', 'port-range'],
    ['https://[2001:db8::1/', 'bad-ip-literal'],
    ['https://[2001:db8::g]/', 'bad-ip-literal'],
    ['https://[1:2:3:4:5:6:7:8:9]/', 'bad-ip-literal'],
    ['https://[1::2::3]/', 'bad-ip-literal'],
    ['https://[192.0.2.1]/', 'bad-ip-literal'],
    ['https://[fe80::1%25en0]/', 'bad-ip-literal'],
    ['https://[::1]x/', 'invalid-character'],
    ['https://exa mple.com/', 'invalid-character'],
    ['https://bücher.example/', 'invalid-character'],
    ['https://example.com/a b', 'invalid-character'],
    ['https://example.com/\u20ac', 'invalid-character'],
    ['https://example.com/a\\b', 'invalid-character'],
    ['https://example.com/<x>', 'invalid-character'],
    ['https://example.com/a\nb', 'invalid-character'],
    ['https://exa%mple.com/', 'bad-percent-encoding'],
    ['https://example.com/%4', 'bad-percent-encoding'],
    ['https://example.com/%zz', 'bad-percent-encoding'],
    ['https://example.com/?q=%', 'bad-percent-encoding'],
    ['https://example.com/#top', 'fragment'],
    ['https://example.com/#', 'fragment'],
  ])('rejects %j with %s', (uri, rule) => {
    expect(httpsUriViolation(uri)).toBe(rule);
  });

  it('agrees with the WHATWG parser where that parser is strict enough to compare', () => {
    // WHATWG URL accepts all of these (it repairs them); our checker must not.
    for (const repaired of ['HTTPS://example.com/', 'https:/example.com', 'https://example.com/a b']) {
      expect(() => new URL(repaired)).not.toThrow();
      expect(httpsUriViolation(repaired)).toBeDefined();
    }
  });
});
