import { describe, expect, it } from 'vitest';
import { NS_AGENT_TASK } from '../namespaces.ts';
import { buildCancel, buildCancelAccepted, parseCancel, parseCancelAccepted } from './task-cancel.ts';
import {
  TASK_ID,
  expectBuildError,
  expectParseError,
  expectRoundTrip,
  titled,
} from './test-support/stanza-test-kit.ts';
import { parseXml } from '../xml/parse-xml.ts';

const task = (local: string): string => `{${NS_AGENT_TASK}}${local}`;
const cancelXml = (content: string): string =>
  `<cancel xmlns='${NS_AGENT_TASK}' expected-revision='4' task-id='${TASK_ID}'>${content}</cancel>`;

describe('cancel and cancel-accepted', () => {
  it('round-trip: absent reason, empty reason, and a reason with every awkward character', () => {
    expectRoundTrip(buildCancel, parseCancel, { taskId: TASK_ID, expectedRevision: 4 });
    const empty = expectRoundTrip(buildCancel, parseCancel, {
      taskId: TASK_ID,
      expectedRevision: 4,
      reason: '',
    });
    expect(empty).toContain('<reason/>');
    expectRoundTrip(buildCancel, parseCancel, {
      taskId: TASK_ID,
      expectedRevision: 4,
      reason: ' Trip\r\nwas\rcancelled <&> ]]> \t ',
    });
    expectRoundTrip(buildCancelAccepted, parseCancelAccepted, { taskId: TASK_ID, revision: 5 });
  });

  it('records presence versus absence of <reason/>', () => {
    expect('reason' in parseCancel(parseXml(cancelXml('')))).toBe(false);
    expect(parseCancel(parseXml(cancelXml('<reason/>'))).reason).toBe('');
    expect(parseCancel(parseXml(cancelXml('<reason></reason>'))).reason).toBe('');
  });

  it('keeps the parsed character data exactly: no trimming, only XML line-end normalization (#cancellation)', () => {
    const reason = parseCancel(
      parseXml(cancelXml('<reason>  Trip\r\nwas&#13;\ncancelled <![CDATA[<now>]]>  </reason>')),
    ).reason;
    expect(reason).toBe('  Trip\nwas\r\ncancelled <now>  ');
    // CRLF and LF are identical after parsing (interp-38).
    expect(parseCancel(parseXml(cancelXml('<reason>a\r\nb</reason>'))).reason).toBe(
      parseCancel(parseXml(cancelXml('<reason>a\nb</reason>'))).reason,
    );
  });

  it.each(
    titled([
      [
        parseCancel,
        cancelXml('<reason>a</reason><reason>b</reason>'),
        { rule: 'duplicate-child', element: task('cancel') },
      ],
      [
        parseCancel,
        cancelXml('<reason><b>loud</b></reason>'),
        { rule: 'unexpected-child', element: task('reason') },
      ],
      [
        parseCancel,
        cancelXml("<reason xml:lang='en'>x</reason>"),
        { rule: 'unexpected-attribute', element: task('reason'), attribute: 'xml:lang' },
      ],
      [
        parseCancel,
        `<cancel xmlns='${NS_AGENT_TASK}' task-id='${TASK_ID}'/>`,
        { rule: 'missing-attribute', element: task('cancel'), attribute: 'expected-revision' },
      ],
      [
        parseCancelAccepted,
        `<cancel-accepted xmlns='${NS_AGENT_TASK}' revision='5' task-id='${TASK_ID}!'/>`,
        { rule: 'invalid-identifier', element: task('cancel-accepted'), attribute: 'task-id' },
      ],
    ]),
  )('%s', (_title, parse, text, expected) => {
    expectParseError(parse, text, expected);
  });

  it('refuses to build a reason XML cannot carry', () => {
    expectBuildError(() => buildCancel({ taskId: TASK_ID, expectedRevision: 4, reason: 'bell\u0007' }), {
      rule: 'illegal-xml-character',
      element: task('reason'),
    });
  });
});
