/**
 * Task recovery (#task-recovery, #schema-agent-task): <task-state-request/> and <task-state>
 * with the pinned manifest hash and, while input is pending, <pending-input/>;
 * <task-result-request/> and the terminal <task-result/>.
 */
import { xml } from '@xmpp/xml';
import type { Element } from '@xmpp/xml';
import type { XmppDateTime } from '../datetime.ts';
import { MEDIA_TYPE_JSON, NS_AGENT_TASK } from '../namespaces.ts';
import {
  checkAttributes,
  enumAttribute,
  expectElement,
  expectEmpty,
  expectMediaType,
  lexAttribute,
  lexOptionalAttribute,
  only,
  readSequence,
  requiredAttribute,
} from './element-reader.ts';
import { booleanText, dateTimeText, integerText, legalText, lexForBuild } from './element-writer.ts';
import type { BuildTarget } from './element-writer.ts';
import { buildHashContainer, parseHashContainer } from './hash.ts';
import type { Hash } from './hash.ts';
import { buildJsonElement, readJsonText } from './json-text.ts';
import {
  lexBoolean,
  lexDateTime,
  lexEnum,
  lexIdentifier,
  lexNonNegativeInteger,
  lexVersion,
} from './lexical.ts';
import {
  TASK_STATES,
  TERMINAL_STATES,
  type TaskState as TaskStateName,
  type TerminalState,
} from '../task-states.ts';

/** <task-state-request/> and <task-result-request/> carry only the task ID. */
export interface TaskRequest {
  readonly taskId: string;
}

export interface TaskState {
  readonly taskId: string;
  /** The target endpoint's bare JID, as an opaque string. */
  readonly endpoint: string;
  readonly state: TaskStateName;
  readonly revision: number;
  readonly apiVersion: string;
  readonly created: XmppDateTime;
  readonly updated: XmppDateTime;
  readonly deadline?: XmppDateTime;
  readonly retainUntil: XmppDateTime;
  readonly resultAvailable: boolean;
  readonly manifestHash: Hash;
  /** The complete input_required object while input is pending. */
  readonly pendingInputJson?: string;
}

export interface TaskResult {
  readonly taskId: string;
  readonly state: TerminalState;
  readonly revision: number;
  readonly json: string;
}

const task = (local: string): BuildTarget => ({ local, ns: NS_AGENT_TASK });

function parseTaskRequest(
  element: Element,
  local: 'task-state-request' | 'task-result-request',
): TaskRequest {
  expectElement(element, local, NS_AGENT_TASK);
  checkAttributes(element, ['task-id']);
  expectEmpty(element);
  return { taskId: lexAttribute(element, 'task-id', lexIdentifier) };
}

function buildTaskRequest(
  local: 'task-state-request' | 'task-result-request',
  request: TaskRequest,
): Element {
  return xml(local, {
    xmlns: NS_AGENT_TASK,
    'task-id': lexForBuild(task(local), 'task-id', request.taskId, lexIdentifier),
  });
}

export const parseTaskStateRequest = (element: Element): TaskRequest =>
  parseTaskRequest(element, 'task-state-request');
export const buildTaskStateRequest = (request: TaskRequest): Element =>
  buildTaskRequest('task-state-request', request);
export const parseTaskResultRequest = (element: Element): TaskRequest =>
  parseTaskRequest(element, 'task-result-request');
export const buildTaskResultRequest = (request: TaskRequest): Element =>
  buildTaskRequest('task-result-request', request);

const TASK_STATE_ATTRIBUTES = [
  'task-id',
  'endpoint',
  'state',
  'revision',
  'api-version',
  'created',
  'updated',
  'deadline',
  'retain-until',
  'result-available',
];

export function parseTaskState(element: Element): TaskState {
  expectElement(element, 'task-state', NS_AGENT_TASK);
  checkAttributes(element, TASK_STATE_ATTRIBUTES);
  const deadline = lexOptionalAttribute(element, 'deadline', lexDateTime);
  const [manifestHashes, pendingInputs = []] = readSequence(element, [
    { local: 'manifest-hash', ns: NS_AGENT_TASK },
    { local: 'pending-input', ns: NS_AGENT_TASK, min: 0 },
  ]);
  const state: TaskState = {
    taskId: lexAttribute(element, 'task-id', lexIdentifier),
    endpoint: requiredAttribute(element, 'endpoint'),
    state: enumAttribute(element, 'state', TASK_STATES),
    revision: lexAttribute(element, 'revision', lexNonNegativeInteger),
    apiVersion: lexAttribute(element, 'api-version', lexVersion),
    created: lexAttribute(element, 'created', lexDateTime),
    updated: lexAttribute(element, 'updated', lexDateTime),
    ...(deadline === undefined ? {} : { deadline }),
    retainUntil: lexAttribute(element, 'retain-until', lexDateTime),
    resultAvailable: lexAttribute(element, 'result-available', lexBoolean),
    manifestHash: parseHashContainer(only(manifestHashes), 'manifest-hash', NS_AGENT_TASK),
  };
  const [pendingInput] = pendingInputs;
  if (pendingInput === undefined) return state;
  checkAttributes(pendingInput, ['media-type']);
  expectMediaType(pendingInput, MEDIA_TYPE_JSON);
  return { ...state, pendingInputJson: readJsonText(pendingInput) };
}

export function buildTaskState(value: TaskState): Element {
  const target = task('task-state');
  return xml(
    'task-state',
    {
      xmlns: NS_AGENT_TASK,
      'task-id': lexForBuild(target, 'task-id', value.taskId, lexIdentifier),
      endpoint: legalText(target, value.endpoint, 'endpoint'),
      state: lexForBuild(target, 'state', value.state, lexEnum(TASK_STATES)),
      revision: integerText(target, 'revision', value.revision),
      'api-version': lexForBuild(target, 'api-version', value.apiVersion, lexVersion),
      created: dateTimeText(target, 'created', value.created),
      updated: dateTimeText(target, 'updated', value.updated),
      deadline: value.deadline === undefined ? undefined : dateTimeText(target, 'deadline', value.deadline),
      'retain-until': dateTimeText(target, 'retain-until', value.retainUntil),
      'result-available': booleanText(value.resultAvailable),
    },
    buildHashContainer('manifest-hash', value.manifestHash),
    value.pendingInputJson === undefined
      ? undefined
      : buildJsonElement(task('pending-input'), { 'media-type': MEDIA_TYPE_JSON }, value.pendingInputJson),
  );
}

export function parseTaskResult(element: Element): TaskResult {
  expectElement(element, 'task-result', NS_AGENT_TASK);
  checkAttributes(element, ['task-id', 'state', 'revision', 'media-type']);
  const taskId = lexAttribute(element, 'task-id', lexIdentifier);
  const state = enumAttribute(element, 'state', TERMINAL_STATES);
  const revision = lexAttribute(element, 'revision', lexNonNegativeInteger);
  expectMediaType(element, MEDIA_TYPE_JSON);
  return { taskId, state, revision, json: readJsonText(element) };
}

export function buildTaskResult(value: TaskResult): Element {
  const target = task('task-result');
  return buildJsonElement(
    target,
    {
      xmlns: NS_AGENT_TASK,
      'task-id': lexForBuild(target, 'task-id', value.taskId, lexIdentifier),
      state: lexForBuild(target, 'state', value.state, lexEnum(TERMINAL_STATES)),
      revision: integerText(target, 'revision', value.revision),
      'media-type': MEDIA_TYPE_JSON,
    },
    value.json,
  );
}
