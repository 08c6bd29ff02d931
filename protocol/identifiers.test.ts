import { describe, expect, it } from 'vitest';
import {
  generateIdentifier,
  isApiVersion,
  isIdentifier,
  isXmlLegalText,
  toolNameViolation,
} from './identifiers.ts';

describe('identifier grammar (#invocation)', () => {
  it('accepts 22 to 128 characters of the unreserved alphabet', () => {
    expect(isIdentifier('a'.repeat(22))).toBe(true);
    expect(isIdentifier('A-z_0.9~'.repeat(16))).toBe(true);
    expect(isIdentifier('req-91a6d2f49c514f44a2d223f0f97bd9fe')).toBe(true);
  });

  it.each([
    ['21 characters', 'a'.repeat(21)],
    ['129 characters', 'a'.repeat(129)],
    ['a space', `${'a'.repeat(22)} `],
    ['a slash', `${'a'.repeat(22)}/`],
    ['non-ASCII', `${'a'.repeat(22)}é`],
    ['a trailing newline', `${'a'.repeat(22)}\n`],
  ])('rejects %s', (_label, value) => {
    expect(isIdentifier(value)).toBe(false);
  });

  it('generates unique identifiers with at least 128 random bits', () => {
    const seen = new Set<string>();
    for (let i = 0; i < 2000; i++) {
      const id = generateIdentifier('task-');
      expect(isIdentifier(id)).toBe(true);
      // 24 base64url characters after the prefix = 144 bits from the CSPRNG.
      expect(id.slice('task-'.length)).toMatch(/^[A-Za-z0-9_-]{24}$/);
      seen.add(id);
    }
    expect(seen.size).toBe(2000);
  });

  it('refuses a prefix that would leave the grammar', () => {
    expect(() => generateIdentifier('bad prefix')).toThrow(RangeError);
    expect(() => generateIdentifier('x'.repeat(110))).toThrow(RangeError);
  });
});

describe('API versions (#namespaces)', () => {
  it('accepts 1 to 64 unreserved characters and nothing else', () => {
    expect(isApiVersion('1.4.0')).toBe(true);
    expect(isApiVersion('v'.repeat(64))).toBe(true);
    expect(isApiVersion('')).toBe(false);
    expect(isApiVersion('v'.repeat(65))).toBe(false);
    expect(isApiVersion('1.4.0 ')).toBe(false);
    expect(isApiVersion('1#4')).toBe(false);
  });
});

describe('tool names (#namespaces, interp-22)', () => {
  it('accepts any non-empty XML-legal string, including beyond the MCP recommendation', () => {
    for (const name of ['forecast.get', 'with space', 'Ж', '😀', 'tab\there', 'x'.repeat(500)]) {
      expect(toolNameViolation(name)).toBeUndefined();
    }
  });

  it.each([
    ['', 'empty'],
    ['a\u0000', 'xml-illegal-character'],
    ['a\u001f', 'xml-illegal-character'],
    ['\ufffe', 'xml-illegal-character'],
    ['\uffff', 'xml-illegal-character'],
    ['\ud800', 'lone-surrogate'],
    ['x\udc00', 'lone-surrogate'],
    ['\ud800x', 'lone-surrogate'],
  ])('rejects %j as %s', (name, rule) => {
    expect(toolNameViolation(name)).toBe(rule);
  });

  it('classifies arbitrary text as XML-legal or not', () => {
    expect(isXmlLegalText('')).toBe(true);
    expect(isXmlLegalText('plain <text> & more')).toBe(true);
    expect(isXmlLegalText('bell\u0007')).toBe(false);
  });
});
