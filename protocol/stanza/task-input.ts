/**
 * Interactive input (#interactive-input, #schema-agent-task): <provide-input> answering one
 * pending request with JSON <input/>, and <input-accepted/>. Note that 'request-id' here is
 * the input request's requestId, not the invocation's (interp-36).
 */
import { xml } from '@xmpp/xml';
import type { Element } from '@xmpp/xml';
import { MEDIA_TYPE_JSON, NS_AGENT_TASK } from '../namespaces.ts';
import {
  checkAttributes,
  expectElement,
  expectEmpty,
  expectMediaType,
  lexAttribute,
  only,
  readSequence,
} from './element-reader.ts';
import { integerText, lexForBuild } from './element-writer.ts';
import type { BuildTarget } from './element-writer.ts';
import { buildJsonElement, readJsonText } from './json-text.ts';
import { lexIdentifier, lexNonNegativeInteger } from './lexical.ts';

export interface ProvideInput {
  readonly taskId: string;
  /** The pending input request's requestId. */
  readonly requestId: string;
  readonly expectedRevision: number;
  readonly inputJson: string;
}

export interface InputAccepted {
  readonly taskId: string;
  readonly revision: number;
}

const task = (local: string): BuildTarget => ({ local, ns: NS_AGENT_TASK });

export function parseProvideInput(element: Element): ProvideInput {
  expectElement(element, 'provide-input', NS_AGENT_TASK);
  checkAttributes(element, ['task-id', 'request-id', 'expected-revision']);
  const taskId = lexAttribute(element, 'task-id', lexIdentifier);
  const requestId = lexAttribute(element, 'request-id', lexIdentifier);
  const expectedRevision = lexAttribute(element, 'expected-revision', lexNonNegativeInteger);
  const [inputs] = readSequence(element, [{ local: 'input', ns: NS_AGENT_TASK }]);
  const input = only(inputs);
  checkAttributes(input, ['media-type']);
  expectMediaType(input, MEDIA_TYPE_JSON);
  return { taskId, requestId, expectedRevision, inputJson: readJsonText(input) };
}

export function buildProvideInput(value: ProvideInput): Element {
  const target = task('provide-input');
  return xml(
    'provide-input',
    {
      xmlns: NS_AGENT_TASK,
      'task-id': lexForBuild(target, 'task-id', value.taskId, lexIdentifier),
      'request-id': lexForBuild(target, 'request-id', value.requestId, lexIdentifier),
      'expected-revision': integerText(target, 'expected-revision', value.expectedRevision),
    },
    buildJsonElement(task('input'), { 'media-type': MEDIA_TYPE_JSON }, value.inputJson),
  );
}

export function parseInputAccepted(element: Element): InputAccepted {
  expectElement(element, 'input-accepted', NS_AGENT_TASK);
  checkAttributes(element, ['task-id', 'revision']);
  expectEmpty(element);
  return {
    taskId: lexAttribute(element, 'task-id', lexIdentifier),
    revision: lexAttribute(element, 'revision', lexNonNegativeInteger),
  };
}

export function buildInputAccepted(value: InputAccepted): Element {
  const target = task('input-accepted');
  return xml('input-accepted', {
    xmlns: NS_AGENT_TASK,
    'task-id': lexForBuild(target, 'task-id', value.taskId, lexIdentifier),
    revision: integerText(target, 'revision', value.revision),
  });
}
