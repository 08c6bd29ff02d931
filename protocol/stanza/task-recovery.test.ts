import { describe, it } from 'vitest';
import { NS_AGENT_TASK } from '../namespaces.ts';
import {
  buildTaskResult,
  buildTaskResultRequest,
  buildTaskState,
  buildTaskStateRequest,
  parseTaskResult,
  parseTaskResultRequest,
  parseTaskState,
  parseTaskStateRequest,
} from './task-recovery.ts';
import type { TaskState } from './task-recovery.ts';
import {
  MANIFEST_HASH,
  TASK_ID,
  at,
  expectBuildError,
  expectParseError,
  expectRoundTrip,
  titled,
} from './test-support/stanza-test-kit.ts';

const task = (local: string): string => `{${NS_AGENT_TASK}}${local}`;
const HASH = `<hash xmlns='urn:xmpp:hashes:2' algo='sha-256'>${MANIFEST_HASH.value}</hash>`;
const STATE: TaskState = {
  taskId: TASK_ID,
  endpoint: 'weather@agents.example',
  state: 'running',
  revision: 2,
  apiVersion: '1.4.0',
  created: at('2026-07-27T19:14:01Z'),
  updated: at('2026-07-27T19:14:03Z'),
  retainUntil: at('2026-07-28T19:14:01Z'),
  resultAvailable: false,
  manifestHash: MANIFEST_HASH,
};
const STATE_ATTRIBUTES =
  `api-version='1.4.0' created='2026-07-27T19:14:01Z' endpoint='weather@agents.example' result-available='false' ` +
  `retain-until='2026-07-28T19:14:01Z' revision='2' state='running' task-id='${TASK_ID}' updated='2026-07-27T19:14:03Z'`;
const stateXml = (attributes: string, content: string): string =>
  `<task-state xmlns='${NS_AGENT_TASK}' ${attributes}>${content}</task-state>`;
const MANIFEST_HASH_XML = `<manifest-hash>${HASH}</manifest-hash>`;

describe('task-state and task-result', () => {
  it('round-trip requests, states with deadline and pending input, and results', () => {
    expectRoundTrip(buildTaskStateRequest, parseTaskStateRequest, { taskId: TASK_ID });
    expectRoundTrip(buildTaskResultRequest, parseTaskResultRequest, { taskId: TASK_ID });
    expectRoundTrip(buildTaskState, parseTaskState, STATE);
    expectRoundTrip(buildTaskState, parseTaskState, {
      ...STATE,
      state: 'input_required',
      revision: 3,
      deadline: at('2026-07-27T19:15:00Z'),
      pendingInputJson: '{"requestId":"input-a5128a63d64146d5a6ffac65bb20c348","question":"Which unit?"}',
    });
    expectRoundTrip(buildTaskResult, parseTaskResult, {
      taskId: TASK_ID,
      state: 'completed',
      revision: 4,
      json: '{"result":{"content":[]}}',
    });
  });

  it.each(
    titled([
      [
        parseTaskStateRequest,
        `<task-state-request xmlns='${NS_AGENT_TASK}'/>`,
        { rule: 'missing-attribute', element: task('task-state-request'), attribute: 'task-id' },
      ],
      [
        parseTaskState,
        stateXml(STATE_ATTRIBUTES.replace("'running'", "'paused'"), MANIFEST_HASH_XML),
        { rule: 'invalid-attribute', element: task('task-state'), attribute: 'state' },
      ],
      [
        parseTaskState,
        stateXml(STATE_ATTRIBUTES.replace("'false'", "'no'"), MANIFEST_HASH_XML),
        { rule: 'invalid-boolean', element: task('task-state'), attribute: 'result-available' },
      ],
      [
        parseTaskState,
        stateXml(`${STATE_ATTRIBUTES} deadline='2026-07-27T19:15:00'`, MANIFEST_HASH_XML),
        { rule: 'invalid-datetime', element: task('task-state'), attribute: 'deadline' },
      ],
      [
        parseTaskState,
        stateXml(STATE_ATTRIBUTES.replace("endpoint='weather@agents.example'", ''), MANIFEST_HASH_XML),
        { rule: 'missing-attribute', element: task('task-state'), attribute: 'endpoint' },
      ],
      [
        parseTaskState,
        stateXml(STATE_ATTRIBUTES, ''),
        { rule: 'missing-child', element: task('task-state') },
      ],
      [
        parseTaskState,
        stateXml(
          STATE_ATTRIBUTES,
          `<pending-input media-type='application/json'>{}</pending-input>${MANIFEST_HASH_XML}`,
        ),
        { rule: 'child-order', element: task('task-state') },
      ],
      [
        parseTaskState,
        stateXml(STATE_ATTRIBUTES, `${MANIFEST_HASH_XML}<pending-input>{}</pending-input>`),
        { rule: 'missing-attribute', element: task('pending-input'), attribute: 'media-type' },
      ],
      [
        parseTaskResult,
        `<task-result xmlns='${NS_AGENT_TASK}' media-type='application/json' revision='4' state='running' task-id='${TASK_ID}'>{}</task-result>`,
        { rule: 'invalid-attribute', element: task('task-result'), attribute: 'state' },
      ],
      [
        parseTaskResult,
        `<task-result xmlns='${NS_AGENT_TASK}' revision='4' state='failed' task-id='${TASK_ID}'>{}</task-result>`,
        { rule: 'missing-attribute', element: task('task-result'), attribute: 'media-type' },
      ],
    ]),
  )('%s', (_title, parse, text, expected) => {
    expectParseError(parse, text, expected);
  });

  it('refuses to build a non-terminal result or a revision that is not a safe integer', () => {
    expectBuildError(
      () => buildTaskResult({ taskId: TASK_ID, state: 'running' as 'failed', revision: 1, json: '{}' }),
      {
        rule: 'invalid-attribute',
        element: task('task-result'),
        attribute: 'state',
      },
    );
    expectBuildError(() => buildTaskState({ ...STATE, revision: 2 ** 53 }), {
      rule: 'invalid-integer',
      element: task('task-state'),
      attribute: 'revision',
    });
  });
});
