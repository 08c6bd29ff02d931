import { describe, expect, it } from 'vitest';
import type { JsonValue } from '../json/json-value.ts';
import { manifestSchemaViolations } from './manifest-schema.ts';
import { ViolationList, childPointer, pointerToken } from './schema-violations.ts';

describe('JSON pointers (RFC 6901)', () => {
  it('escapes ~ before /', () => {
    expect(pointerToken('a/b~c')).toBe('a~1b~0c');
    expect(pointerToken('~1')).toBe('~01');
    expect(childPointer('', 'https://x')).toBe('/https:~1~1x');
    expect(childPointer('/tools', 3)).toBe('/tools/3');
  });
});

describe('schema violation messages', () => {
  const SECRET = 'SECRET-7f3a';

  it('never reflect the rejected value, whatever the keyword', () => {
    const manifest: JsonValue = {
      manifestSpecVersion: SECRET,
      agent: { jid: SECRET, name: SECRET.repeat(20), version: SECRET + ' x', [SECRET]: 1, homepage: SECRET },
      implementation: { name: SECRET },
      mcpProtocolVersion: SECRET,
      tools: [
        {
          name: SECRET,
          inputSchema: SECRET,
          'urn:xmpp:agent-api:0': {
            tags: [SECRET, SECRET],
            defaultTimeoutSeconds: 0.5,
            approvalRequired: SECRET,
          },
        },
      ],
    };
    const violations = manifestSchemaViolations(manifest);
    expect(violations.length).toBeGreaterThan(8);
    for (const violation of violations) expect(violation.message).not.toContain(SECRET);
  });

  it('state the schema limit', () => {
    const tools = Array.from({ length: 4097 }, (_, i) => ({ name: `t${i}`, inputSchema: {} }));
    const manifest = { manifestSpecVersion: '0', agent: { jid: 'a@b', name: 'n', version: '1' }, tools };
    expect(manifestSchemaViolations(manifest)).toEqual([
      { rule: 'schema:maxItems', path: '/tools', message: 'must have at most 4096 item(s)' },
    ]);
  });
});

describe('ViolationList', () => {
  it('keeps every schema finding but drops later checks at or above a reported location', () => {
    const list = new ViolationList();
    list.addAll([
      { rule: 'schema:pattern', path: '/a/b', message: '' },
      { rule: 'schema:maxLength', path: '/a/b', message: '' },
    ]);
    list.add({ rule: 'x:same', path: '/a/b', message: '' });
    list.add({ rule: 'x:ancestor', path: '/a', message: '' });
    list.add({ rule: 'x:sibling-prefix', path: '/a/bc', message: '' });
    list.add({ rule: 'x:descendant', path: '/a/b/c', message: '' });
    expect(list.items.map((v) => v.rule)).toEqual([
      'schema:pattern',
      'schema:maxLength',
      'x:sibling-prefix',
      'x:descendant',
    ]);
    expect(list.covers('')).toBe(true);
    expect(list.covers('/z')).toBe(false);
  });
});
