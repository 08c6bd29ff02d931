/**
 * Shared test material for the stanza codecs: spec-example identifiers and hashes, a round-trip
 * helper that goes through real XML text, matchers for typed violations, and XSD validation
 * with libxml2 (xmllint-wasm) against the spec's schemas in xsd/.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Element } from '@xmpp/xml';
import { expect } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import type { XMLValidationResult } from 'xmllint-wasm';
import { parseDateTime } from '../../datetime.ts';
import type { XmppDateTime } from '../../datetime.ts';
import { REPO_ROOT } from '../../test-support/shared-paths.ts';
import { StanzaBuildError, StanzaParseError } from '../errors.ts';
import type { StanzaRule } from '../errors.ts';
import type { Hash } from '../hash.ts';
import { parseXml } from '../../xml/parse-xml.ts';
import { serialize } from '../xml-serialize.ts';

/** Identifiers and hashes from the spec's examples (interp-01 explains the hash). */
export const TASK_ID = 'task-7f2a9c41d8804e96bb478af6453c0371';
export const REQUEST_ID = 'req-91a6d2f49c514f44a2d223f0f97bd9fe';
export const EVENT_ID = 'evt-50a26b5692644a7880caa7ca56ca5b54';
export const INPUT_REQUEST_ID = 'input-a5128a63d64146d5a6ffac65bb20c348';
export const MANIFEST_HASH: Hash = { algo: 'sha-256', value: 'K2/YdwvIBAlfUIeZHiNCyiYA4m4W2wrEOqXQDoQyXp4=' };
export const SCHEMA_HASH: Hash = { algo: 'sha-256', value: 'XxGP62PwgOW9NLxx8ysunvuijMhSd0y4j1SSRTAbt7c=' };

export function at(text: string): XmppDateTime {
  return parseDateTime(text);
}

/** build → serialize → parseXml → parse; the value must come back equal. */
export function expectRoundTrip<T>(
  build: (value: T) => Element,
  parse: (element: Element) => T,
  value: T,
): string {
  const text = serialize(build(value));
  expect(parse(parseXml(text))).toEqual(value);
  return text;
}

export interface ExpectedViolation {
  readonly rule: StanzaRule;
  readonly element?: string;
  readonly attribute?: string;
}

function matchViolation(
  thrown: unknown,
  kind: typeof StanzaParseError | typeof StanzaBuildError,
  expected: ExpectedViolation,
): void {
  expect(thrown).toBeInstanceOf(kind);
  const error = thrown as StanzaParseError | StanzaBuildError;
  expect(error.rule).toBe(expected.rule);
  if (expected.element !== undefined) expect(error.element).toBe(expected.element);
  if ('attribute' in expected) expect(error.attribute).toBe(expected.attribute);
  expect(error.message).toContain(expected.rule);
  if (expected.attribute !== undefined) expect(error.message).toContain(expected.attribute);
}

/** Parses `xmlText` with `parse` and expects exactly this violation. */
export function expectParseError(
  parse: (element: Element) => unknown,
  xmlText: string,
  expected: ExpectedViolation,
): void {
  const element = parseXml(xmlText);
  let thrown: unknown;
  try {
    parse(element);
  } catch (error) {
    thrown = error;
  }
  matchViolation(thrown, StanzaParseError, expected);
}

export function expectBuildError(build: () => unknown, expected: ExpectedViolation): void {
  let thrown: unknown;
  try {
    build();
  } catch (error) {
    thrown = error;
  }
  matchViolation(thrown, StanzaBuildError, expected);
}

export const XSD_AGENT_API = resolve(REPO_ROOT, 'xsd', 'agent-api.xsd');
export const XSD_AGENT_TASK = resolve(REPO_ROOT, 'xsd', 'agent-task.xsd');

/** Validates each document against one XSD in a single libxml2 run. */
export async function validateWithXsd(
  xsdPath: string,
  documents: readonly string[],
): Promise<XMLValidationResult> {
  return validateXML({
    xml: documents.map((contents, index) => ({ fileName: `doc-${index}.xml`, contents })),
    schema: [{ fileName: 'schema.xsd', contents: readFileSync(xsdPath, 'utf8') }],
  });
}

export type ParseErrorCase = readonly [
  parse: (element: Element) => unknown,
  xmlText: string,
  expected: ExpectedViolation,
];

/** Prefixes each case with a readable title: "rule on <element> @attribute". */
export function titled(cases: readonly ParseErrorCase[]): (readonly [string, ...ParseErrorCase])[] {
  return cases.map((testCase) => {
    const { rule, element, attribute } = testCase[2];
    const title = `${rule}${element === undefined ? '' : ` on <${element}>`}${attribute === undefined ? '' : ` @${attribute}`}`;
    return [title, ...testCase] as const;
  });
}
