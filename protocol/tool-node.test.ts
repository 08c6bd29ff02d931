import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  decodeCollectionNode,
  decodeToolNode,
  encodeCollectionNode,
  encodeToolNode,
  ToolNodeError,
  type ToolNodeRule,
} from './tool-node.ts';

function ruleOf(fn: () => unknown): ToolNodeRule | undefined {
  try {
    fn();
  } catch (error) {
    if (error instanceof ToolNodeError) return error.rule;
    throw error;
  }
  return undefined;
}

describe('tool nodes (#namespaces)', () => {
  it('reproduces the spec example node for forecast.get in 1.4.0', () => {
    expect(encodeToolNode('1.4.0', 'forecast.get')).toBe('urn:xmpp:agent-tool:0#1.4.0#Zm9yZWNhc3QuZ2V0');
    expect(decodeToolNode('urn:xmpp:agent-tool:0#1.4.0#Zm9yZWNhc3QuZ2V0')).toEqual({
      version: '1.4.0',
      toolName: 'forecast.get',
    });
  });

  it('encodes collection nodes and rejects bad versions', () => {
    expect(encodeCollectionNode('1.4.0')).toBe('urn:xmpp:agent-tools:0#1.4.0');
    expect(decodeCollectionNode('urn:xmpp:agent-tools:0#1.4.0')).toBe('1.4.0');
    expect(ruleOf(() => decodeCollectionNode('urn:xmpp:agent-tools:0#'))).toBe('invalid-version');
    expect(ruleOf(() => decodeCollectionNode('urn:xmpp:agent-tools:0#1 0'))).toBe('invalid-version');
    expect(ruleOf(() => decodeCollectionNode('urn:xmpp:agent-tool:0#1.0'))).toBe('not-a-collection-node');
    expect(ruleOf(() => encodeCollectionNode('a#b'))).toBe('invalid-version');
  });

  it.each<[string, string, ToolNodeRule]>([
    ['padding', 'urn:xmpp:agent-tool:0#1#YQ==', 'base64url-padding'],
    ['standard alphabet +', 'urn:xmpp:agent-tool:0#1#a+8', 'base64url-alphabet'],
    ['standard alphabet /', 'urn:xmpp:agent-tool:0#1#a/8', 'base64url-alphabet'],
    ['non-zero trailing bits', 'urn:xmpp:agent-tool:0#1#YR', 'base64url-noncanonical'],
    ['dangling sextet', 'urn:xmpp:agent-tool:0#1#YWJjZ', 'base64url-length'],
    ['invalid UTF-8 (lone continuation byte)', 'urn:xmpp:agent-tool:0#1#gA', 'invalid-utf8'],
    ['invalid UTF-8 (encoded surrogate)', 'urn:xmpp:agent-tool:0#1#7aCA', 'invalid-utf8'],
    ['empty name', 'urn:xmpp:agent-tool:0#1#', 'empty-name'],
    ['NUL in name', 'urn:xmpp:agent-tool:0#1#AA', 'illegal-tool-name'],
    ['U+FFFE in name', 'urn:xmpp:agent-tool:0#1#77--', 'illegal-tool-name'],
    [
      'U+FFFF in name',
      `urn:xmpp:agent-tool:0#1#${Buffer.from('\uffff').toString('base64url')}`,
      'illegal-tool-name',
    ],
    ['missing name separator', 'urn:xmpp:agent-tool:0#1', 'not-a-tool-node'],
    ['wrong base', 'urn:xmpp:agent-tools:0#1#YQ', 'not-a-tool-node'],
    ['bad version', 'urn:xmpp:agent-tool:0#1/2#YQ', 'invalid-version'],
  ])('rejects %s', (_label, node, rule) => {
    expect(ruleOf(() => decodeToolNode(node))).toBe(rule);
  });

  it('refuses to encode names the decoder would reject', () => {
    expect(ruleOf(() => encodeToolNode('1', ''))).toBe('empty-name');
    expect(ruleOf(() => encodeToolNode('1', 'a\u0001'))).toBe('illegal-tool-name');
    expect(ruleOf(() => encodeToolNode('1', '\ud800'))).toBe('illegal-tool-name');
  });

  it('keeps names with spaces, TAB/LF/CR and astral characters exact (interp-22)', () => {
    for (const name of ['get forecast', 'a\tb\nc\rd', 'Ж', '😀 tool', 'x'.repeat(300)]) {
      expect(decodeToolNode(encodeToolNode('v1', name)).toolName).toBe(name);
    }
  });

  it('round-trips every legal name and version (property)', () => {
    const legalChar = fc
      .string({ unit: 'grapheme', minLength: 1, maxLength: 40 })
      .filter((s) => !/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/.test(s));
    const version = fc.stringMatching(/^[A-Za-z0-9._~-]{1,64}$/);
    fc.assert(
      fc.property(version, legalChar, (v, name) => {
        const node = encodeToolNode(v, name);
        expect(decodeToolNode(node)).toEqual({ version: v, toolName: name });
      }),
    );
  });
});
