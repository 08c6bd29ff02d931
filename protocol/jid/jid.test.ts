import { describe, expect, it } from 'vitest';
import {
  JidError,
  bareJidEquals,
  bareJidOf,
  normalizeBareJid,
  normalizeJid,
  parseBareJid,
  parseJid,
  type JidRule,
} from './jid.ts';

function ruleOf(action: () => unknown): JidRule | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    if (error instanceof JidError) return error.rule;
    throw error;
  }
}

describe('parseJid structure (RFC 7622 §3.1)', () => {
  it.each([
    ['weather@agents.example', 'weather', 'agents.example', undefined],
    ['agents.example', undefined, 'agents.example', undefined],
    ['agents.example/runtime', undefined, 'agents.example', 'runtime'],
    ['weather@agents.example/runtime', 'weather', 'agents.example', 'runtime'],
    // The resource starts at the first slash, so later @ and / belong to it.
    ['a@b/c@d/e', 'a', 'b', 'c@d/e'],
    ['a@agents.example./r', 'a', 'agents.example', 'r'],
    ['a@[::1]', 'a', '[::1]', undefined],
    ['a@192.0.2.1', 'a', '192.0.2.1', undefined],
    ['ünïcode@bücher.example/ Résource with spaces', 'ünïcode', 'bücher.example', ' Résource with spaces'],
  ])('%s', (text, localpart, domainpart, resourcepart) => {
    expect(parseJid(text)).toEqual({ localpart, domainpart, resourcepart });
  });

  it.each<[string, JidRule]>([
    ['', 'empty-domainpart'],
    ['@agents.example', 'empty-localpart'],
    ['weather@', 'empty-domainpart'],
    ['weather@.', 'empty-domainpart'],
    ['weather@agents.example/', 'empty-resourcepart'],
    [`${'a'.repeat(1024)}@agents.example`, 'localpart-too-long'],
    // 512 two-octet characters: 512 UTF-16 units but 1024 octets.
    [`${'é'.repeat(512)}@agents.example`, 'localpart-too-long'],
    [`weather@agents.example/${'r'.repeat(1024)}`, 'resourcepart-too-long'],
    [`weather@${'a.'.repeat(511)}ab`, 'domainpart-too-long'],
    ['we ather@agents.example', 'localpart-character'],
    ['we\u00a0ather@agents.example', 'localpart-character'],
    ['we\tather@agents.example', 'localpart-character'],
    ['we"ather@agents.example', 'localpart-character'],
    ['we&ather@agents.example', 'localpart-character'],
    ["we'ather@agents.example", 'localpart-character'],
    ['we:ather@agents.example', 'localpart-character'],
    ['we<ather@agents.example', 'localpart-character'],
    ['we>ather@agents.example', 'localpart-character'],
    ['we\u0000ather@agents.example', 'localpart-character'],
    ['we\uffffather@agents.example', 'localpart-character'],
    ['a@b@agents.example', 'domainpart-character'],
    ['weather@agents example', 'domainpart-character'],
    ['weather@agents_example', 'domainpart-character'],
    ['weather@bücher_x.example', 'domainpart-character'],
    ['weather@agents..example', 'domainpart-label'],
    ['weather@-agents.example', 'domainpart-label'],
    ['weather@agents-.example', 'domainpart-label'],
    [`weather@${'a'.repeat(64)}.example`, 'domainpart-label'],
    ['weather@[::1', 'ip-literal'],
    ['weather@[::g]', 'ip-literal'],
    ['weather@[192.0.2.1]', 'ip-literal'],
    ['weather@agents.example/run\u0007time', 'resourcepart-character'],
    ['weather@agents.example/\ufffe', 'resourcepart-character'],
    ['\ud800@agents.example', 'lone-surrogate'],
  ])('rejects %j with %s', (text, rule) => {
    expect(ruleOf(() => parseJid(text))).toBe(rule);
  });

  it('accepts parts of exactly 1023 octets', () => {
    const local = 'a'.repeat(1023);
    expect(parseJid(`${local}@agents.example/${'r'.repeat(1023)}`).localpart).toBe(local);
  });

  it('does not echo the rejected text in the error message', () => {
    const error = (() => {
      try {
        parseJid('secret token@agents.example');
      } catch (caught) {
        return caught;
      }
      return undefined;
    })();
    expect(error).toBeInstanceOf(JidError);
    expect(String(error)).not.toContain('secret');
  });
});

describe('bare JIDs (#namespaces, interp-25)', () => {
  it('rejects a resource where a bare JID is required', () => {
    expect(ruleOf(() => parseBareJid('weather@agents.example/runtime'))).toBe('resource-present');
    expect(ruleOf(() => normalizeBareJid('weather@agents.example/runtime'))).toBe('resource-present');
    expect(parseBareJid('weather@agents.example')).toEqual({
      localpart: 'weather',
      domainpart: 'agents.example',
    });
  });

  it.each([
    ['Weather@Agents.EXAMPLE', 'weather@agents.example'],
    ['weather@agents.example.', 'weather@agents.example'],
    ['AGENTS.example', 'agents.example'],
    ['a@[FE80::1]', 'a@[fe80::1]'],
    // NFC then lowercase: decomposed É (E + U+0301) and precomposed É meet as é.
    ['E\u0301mile@example.com', '\u00e9mile@example.com'],
    ['Émile@BÜCHER.example', 'émile@bücher.example'],
  ])('normalizes %s to %s', (text, normalized) => {
    expect(normalizeBareJid(text)).toBe(normalized);
  });

  it('documents where the approximation differs from PRECIS: ß and fullwidth letters stay distinct', () => {
    expect(normalizeBareJid('straße@example.com')).toBe('straße@example.com');
    expect(bareJidEquals('ＡＢＣ@example.com', 'abc@example.com')).toBe(false);
  });

  it('rechecks limits after case mapping, which can lengthen text', () => {
    // U+0130 lowercases to i + U+0307: 2 octets become 3.
    const local = '\u0130'.repeat(400);
    expect(parseBareJid(`${local}@example.com`).localpart).toBe(local);
    expect(ruleOf(() => normalizeBareJid(`${local}@example.com`))).toBe('localpart-too-long');
  });

  it('compares endpoint identifiers after normalization', () => {
    expect(bareJidEquals('Weather@Agents.Example', 'weather@agents.example.')).toBe(true);
    expect(bareJidEquals('weather@agents.example', 'weather2@agents.example')).toBe(false);
    expect(bareJidEquals('agents.example', '@agents.example')).toBe(false);
    expect(bareJidEquals('weather@agents.example/r', 'weather@agents.example/r')).toBe(false);
  });

  it('derives the bare JID of a full JID and normalizes full JIDs without touching resource case', () => {
    expect(bareJidOf('Weather@Agents.Example/Runtime')).toBe('weather@agents.example');
    expect(normalizeJid('Weather@Agents.Example/Run\u0065\u0301')).toBe('weather@agents.example/Run\u00e9');
    expect(normalizeJid('Agents.Example')).toBe('agents.example');
  });
});
