import { describe, it } from 'vitest';
import { NS_AGENT_TASK } from '../namespaces.ts';
import {
  buildInputAccepted,
  buildProvideInput,
  parseInputAccepted,
  parseProvideInput,
} from './task-input.ts';
import {
  INPUT_REQUEST_ID,
  TASK_ID,
  expectBuildError,
  expectParseError,
  expectRoundTrip,
  titled,
} from './test-support/stanza-test-kit.ts';

const task = (local: string): string => `{${NS_AGENT_TASK}}${local}`;
const ATTRIBUTES = `expected-revision='3' request-id='${INPUT_REQUEST_ID}' task-id='${TASK_ID}'`;

describe('provide-input and input-accepted', () => {
  it('round-trip', () => {
    expectRoundTrip(buildProvideInput, parseProvideInput, {
      taskId: TASK_ID,
      requestId: INPUT_REQUEST_ID,
      expectedRevision: 3,
      inputJson: '{"unit":"C"}',
    });
    expectRoundTrip(buildInputAccepted, parseInputAccepted, { taskId: TASK_ID, revision: 4 });
  });

  it.each(
    titled([
      [
        parseProvideInput,
        `<provide-input xmlns='${NS_AGENT_TASK}' ${ATTRIBUTES}/>`,
        { rule: 'missing-child', element: task('provide-input') },
      ],
      [
        parseProvideInput,
        `<provide-input xmlns='${NS_AGENT_TASK}' ${ATTRIBUTES.replace("'3'", "'three'")}><input media-type='application/json'>{}</input></provide-input>`,
        { rule: 'invalid-integer', element: task('provide-input'), attribute: 'expected-revision' },
      ],
      [
        parseProvideInput,
        `<provide-input xmlns='${NS_AGENT_TASK}' ${ATTRIBUTES}><input media-type='text/plain'>C</input></provide-input>`,
        { rule: 'media-type', element: task('input'), attribute: 'media-type' },
      ],
      [
        parseProvideInput,
        `<provide-input xmlns='${NS_AGENT_TASK}' ${ATTRIBUTES.replace(INPUT_REQUEST_ID, 'input-1')}><input media-type='application/json'>{}</input></provide-input>`,
        { rule: 'invalid-identifier', element: task('provide-input'), attribute: 'request-id' },
      ],
      [
        parseInputAccepted,
        `<input-accepted xmlns='${NS_AGENT_TASK}' task-id='${TASK_ID}'/>`,
        { rule: 'missing-attribute', element: task('input-accepted'), attribute: 'revision' },
      ],
    ]),
  )('%s', (_title, parse, text, expected) => {
    expectParseError(parse, text, expected);
  });

  it('refuses to build an input answer without a valid task ID', () => {
    expectBuildError(
      () =>
        buildProvideInput({ taskId: 'x', requestId: INPUT_REQUEST_ID, expectedRevision: 3, inputJson: '{}' }),
      {
        rule: 'invalid-identifier',
        element: task('provide-input'),
        attribute: 'task-id',
      },
    );
  });
});
