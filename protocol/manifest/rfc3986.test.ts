import { describe, expect, it } from 'vitest';
import { isIpv6Address, parseUri, uriComparisonForm } from './rfc3986.ts';

describe('isIpv6Address (RFC 3986 IPv6address)', () => {
  it.each([
    '::',
    '::1',
    '1::',
    '1:2:3:4:5:6:7:8',
    '1:2:3:4:5:6:7::',
    '::2:3:4:5:6:7:8',
    '1:2:3:4:5:6:192.0.2.1',
    '::ffff:192.0.2.1',
    '::192.0.2.1',
    'FE80::ABCD:0:0:1',
  ])('accepts %s', (address) => {
    expect(isIpv6Address(address)).toBe(true);
  });

  it.each([
    '',
    ':',
    ':::',
    '1:2:3:4:5:6:7',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7:8::',
    '::1:2:3:4:5:6:7:8',
    '1::2::3',
    ':1::2',
    '1::2:',
    '12345::',
    'g::',
    '192.0.2.1::',
    '1:2:3:4:5:6:7:192.0.2.1',
    '::192.0.2.256',
    '::01.2.3.4',
    '::1.2.3.4:5',
  ])('rejects %j', (address) => {
    expect(isIpv6Address(address)).toBe(false);
  });
});

describe('parseUri', () => {
  it('splits the components without normalizing them', () => {
    expect(parseUri('HTTPS://u:p@[::1]:8/a%2f?q#f')).toEqual({
      ok: true,
      uri: {
        scheme: 'HTTPS',
        authority: { userinfo: 'u:p', host: '[::1]', hostKind: 'ip-literal', port: '8' },
        path: '/a%2f',
        query: 'q',
        fragment: 'f',
      },
    });
    expect(parseUri('urn:xmpp:agent-api:0')).toEqual({
      ok: true,
      uri: {
        scheme: 'urn',
        authority: undefined,
        path: 'xmpp:agent-api:0',
        query: undefined,
        fragment: undefined,
      },
    });
  });

  it('names the failing component', () => {
    expect(parseUri('https://h/?a b')).toEqual({ ok: false, rule: 'invalid-character', component: 'query' });
    expect(parseUri('https://h/#a#b')).toEqual({
      ok: false,
      rule: 'invalid-character',
      component: 'fragment',
    });
    expect(parseUri('x:a%g0')).toEqual({ ok: false, rule: 'bad-percent-encoding', component: 'path' });
    expect(parseUri('https://a%g0@h/')).toEqual({
      ok: false,
      rule: 'bad-percent-encoding',
      component: 'userinfo',
    });
  });
});

describe('uriComparisonForm (RFC 3986 §6.2.2, RFC 8141 §3.1)', () => {
  function form(text: string): string {
    const parsed = parseUri(text);
    if (!parsed.ok) throw new Error(`test input ${text} is not a URI`);
    return uriComparisonForm(parsed.uri);
  }

  it.each([
    ['urn:XMPP:agent-api:0', 'urn:xmpp:agent-api:0'],
    ['URN:xmpp:agent-api:0', 'urn:xmpp:agent-api:0'],
    ['urn:xmpp:agent-api:%30', 'urn:xmpp:agent-api:0'],
    ['HTTPS://Example.COM/a%2fb?%7e#%41', 'https://example.com/a%2Fb?~#A'],
    ['https://%4A%4b.example/', 'https://jk.example/'],
    ['https://%c3%A9.Example/', 'https://%C3%A9.example/'],
    ['https://u%3a@h:1/', 'https://u%3A@h:1/'],
  ])('%s → %s', (text, expected) => {
    expect(form(text)).toBe(expected);
  });

  it('keeps case where it is significant (URN NSS, paths)', () => {
    expect(form('urn:example:ABC')).not.toBe(form('urn:example:abc'));
    expect(form('https://h/A')).not.toBe(form('https://h/a'));
  });
});
