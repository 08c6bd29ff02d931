import { describe, expect, it } from 'vitest';
import { NS_AGENT_API, NS_AGENT_TASK } from '../namespaces.ts';
import { scanRootElement, schemaForNamespace } from './root-element.ts';

describe('root element scan (routing before xmllint)', () => {
  it('reads a default namespace declaration', () => {
    expect(scanRootElement(`<invoke xmlns='${NS_AGENT_TASK}' tool='x'/>`)).toEqual({
      ok: true,
      namespace: NS_AGENT_TASK,
      localName: 'invoke',
    });
  });

  it('resolves a prefixed root and skips BOM, declaration, comments and PIs', () => {
    const xml = `\uFEFF<?xml version="1.0"?>\n<!-- c --><?pi x?>\n<a:manifest-request xmlns:a="${NS_AGENT_API}"/>`;
    expect(scanRootElement(xml)).toEqual({ ok: true, namespace: NS_AGENT_API, localName: 'manifest-request' });
  });

  it('decodes references in the namespace name', () => {
    const scan = scanRootElement(`<x xmlns='urn:a&amp;b&#x3a;c'/>`);
    expect(scan).toMatchObject({ ok: true, namespace: 'urn:a&b:c' });
  });

  it('reports no namespace for an undeclared default and for xmlns=""', () => {
    expect(scanRootElement('<invoke/>')).toMatchObject({ ok: true, namespace: null });
    expect(scanRootElement(`<invoke xmlns=''/>`)).toMatchObject({ ok: true, namespace: null });
  });

  it.each([
    ['', 'expected the root element'],
    ['text<a/>', 'expected the root element'],
    ['<p:a/>', 'namespace prefix in p:a is not declared'],
    ['<a b/>', "malformed attribute name, or no '=' after it, in <a>"],
    ['<a b=c/>', 'attribute values in <a> must be quoted'],
    [`<a b='c/>`, 'an attribute value in <a> is never closed'],
    ['<!-- open', 'unterminated comment'],
    ['<1a/>', 'expected an element name'],
  ])('flags %j as not well-formed (%s)', (xml, message) => {
    expect(scanRootElement(xml)).toMatchObject({ ok: false, failure: 'not-well-formed', error: { message } });
  });

  it('refuses a DTD outright (restricted XML) and says on which line', () => {
    const scan = scanRootElement(`<?xml version='1.0'?>\n<!DOCTYPE a [<!ENTITY x 'y'>]>\n<a/>`);
    expect(scan).toMatchObject({ ok: false, failure: 'invalid', error: { line: 2 } });
  });

  it('maps only the two registered namespaces to schemas', () => {
    expect(schemaForNamespace(NS_AGENT_API)).toBe('agent-api');
    expect(schemaForNamespace(NS_AGENT_TASK)).toBe('agent-task');
    expect(schemaForNamespace('urn:xmpp:agent-api:1')).toBeUndefined();
    expect(schemaForNamespace(null)).toBeUndefined();
  });
});
