/**
 * Invocation (#invocation, #schema-agent-task): <invoke> with the pinned manifest hash, the JSON
 * arguments and an optional deadline, and the durable-admission result <accepted/>.
 */
import { xml } from '@xmpp/xml';
import type { Element } from '@xmpp/xml';
import type { XmppDateTime } from '../datetime.ts';
import { MEDIA_TYPE_JSON, NS_AGENT_TASK } from '../namespaces.ts';
import {
  checkAttributes,
  expectElement,
  expectEmpty,
  expectMediaType,
  lexAttribute,
  lexContent,
  only,
  readSequence,
} from './element-reader.ts';
import { dateTimeText, integerText, lexForBuild } from './element-writer.ts';
import type { BuildTarget } from './element-writer.ts';
import { buildHashContainer, parseHashContainer } from './hash.ts';
import type { Hash } from './hash.ts';
import { buildJsonElement, readJsonText } from './json-text.ts';
import { lexDateTime, lexIdentifier, lexNonNegativeInteger, lexToolName, lexVersion } from './lexical.ts';

export interface Invoke {
  readonly requestId: string;
  readonly tool: string;
  readonly apiVersion: string;
  readonly manifestHash: Hash;
  /** The <arguments/> JSON text as carried; replay comparison canonicalizes it (#json-encoding). */
  readonly argumentsJson: string;
  readonly deadline?: XmppDateTime;
}

export interface Accepted {
  readonly requestId: string;
  readonly taskId: string;
  readonly revision: number;
  readonly created: XmppDateTime;
  readonly retainUntil: XmppDateTime;
}

const task = (local: string): BuildTarget => ({ local, ns: NS_AGENT_TASK });

export function parseInvoke(element: Element): Invoke {
  expectElement(element, 'invoke', NS_AGENT_TASK);
  checkAttributes(element, ['request-id', 'tool', 'api-version']);
  const requestId = lexAttribute(element, 'request-id', lexIdentifier);
  const tool = lexAttribute(element, 'tool', lexToolName);
  const apiVersion = lexAttribute(element, 'api-version', lexVersion);
  const [manifestHashes, argumentList, deadlines = []] = readSequence(element, [
    { local: 'manifest-hash', ns: NS_AGENT_TASK },
    { local: 'arguments', ns: NS_AGENT_TASK },
    { local: 'deadline', ns: NS_AGENT_TASK, min: 0 },
  ]);
  const manifestHash = parseHashContainer(only(manifestHashes), 'manifest-hash', NS_AGENT_TASK);
  const argumentsElement = only(argumentList);
  checkAttributes(argumentsElement, ['media-type']);
  expectMediaType(argumentsElement, MEDIA_TYPE_JSON);
  const invoke = { requestId, tool, apiVersion, manifestHash, argumentsJson: readJsonText(argumentsElement) };
  const [deadlineElement] = deadlines;
  if (deadlineElement === undefined) return invoke;
  checkAttributes(deadlineElement, []);
  return { ...invoke, deadline: lexContent(deadlineElement, lexDateTime) };
}

export function buildInvoke(invoke: Invoke): Element {
  const target = task('invoke');
  return xml(
    'invoke',
    {
      xmlns: NS_AGENT_TASK,
      'request-id': lexForBuild(target, 'request-id', invoke.requestId, lexIdentifier),
      tool: lexForBuild(target, 'tool', invoke.tool, lexToolName),
      'api-version': lexForBuild(target, 'api-version', invoke.apiVersion, lexVersion),
    },
    buildHashContainer('manifest-hash', invoke.manifestHash),
    buildJsonElement(task('arguments'), { 'media-type': MEDIA_TYPE_JSON }, invoke.argumentsJson),
    invoke.deadline === undefined
      ? undefined
      : xml('deadline', {}, dateTimeText(task('deadline'), undefined, invoke.deadline)),
  );
}

export function parseAccepted(element: Element): Accepted {
  expectElement(element, 'accepted', NS_AGENT_TASK);
  checkAttributes(element, ['request-id', 'task-id', 'revision', 'created', 'retain-until']);
  expectEmpty(element);
  return {
    requestId: lexAttribute(element, 'request-id', lexIdentifier),
    taskId: lexAttribute(element, 'task-id', lexIdentifier),
    revision: lexAttribute(element, 'revision', lexNonNegativeInteger),
    created: lexAttribute(element, 'created', lexDateTime),
    retainUntil: lexAttribute(element, 'retain-until', lexDateTime),
  };
}

export function buildAccepted(accepted: Accepted): Element {
  const target = task('accepted');
  return xml('accepted', {
    xmlns: NS_AGENT_TASK,
    'request-id': lexForBuild(target, 'request-id', accepted.requestId, lexIdentifier),
    'task-id': lexForBuild(target, 'task-id', accepted.taskId, lexIdentifier),
    revision: integerText(target, 'revision', accepted.revision),
    created: dateTimeText(target, 'created', accepted.created),
    'retain-until': dateTimeText(target, 'retain-until', accepted.retainUntil),
  });
}
