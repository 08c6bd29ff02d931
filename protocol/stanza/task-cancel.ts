/**
 * Cancellation (#cancellation, #schema-agent-task): <cancel> with an optional <reason/>, and
 * <cancel-accepted/>. Replay identity records whether <reason/> is present and the exact parsed
 * character data when it is, so the parser keeps both: an absent `reason` key means no
 * element, "" means an empty <reason/>, and the text is never trimmed or normalized further
 * than XML parsing already did (interp-38).
 */
import { xml } from '@xmpp/xml';
import type { Element } from '@xmpp/xml';
import { NS_AGENT_TASK } from '../namespaces.ts';
import {
  checkAttributes,
  expectElement,
  expectEmpty,
  lexAttribute,
  readSequence,
  simpleContent,
} from './element-reader.ts';
import { integerText, legalText, lexForBuild } from './element-writer.ts';
import type { BuildTarget } from './element-writer.ts';
import { lexIdentifier, lexNonNegativeInteger } from './lexical.ts';

export interface Cancel {
  readonly taskId: string;
  readonly expectedRevision: number;
  /** Absent when the request had no <reason/>; otherwise its character data exactly. */
  readonly reason?: string;
}

export interface CancelAccepted {
  readonly taskId: string;
  readonly revision: number;
}

const task = (local: string): BuildTarget => ({ local, ns: NS_AGENT_TASK });

export function parseCancel(element: Element): Cancel {
  expectElement(element, 'cancel', NS_AGENT_TASK);
  checkAttributes(element, ['task-id', 'expected-revision']);
  const taskId = lexAttribute(element, 'task-id', lexIdentifier);
  const expectedRevision = lexAttribute(element, 'expected-revision', lexNonNegativeInteger);
  const [reasons = []] = readSequence(element, [{ local: 'reason', ns: NS_AGENT_TASK, min: 0 }]);
  const [reason] = reasons;
  if (reason === undefined) return { taskId, expectedRevision };
  checkAttributes(reason, []);
  return { taskId, expectedRevision, reason: simpleContent(reason) };
}

export function buildCancel(value: Cancel): Element {
  const target = task('cancel');
  return xml(
    'cancel',
    {
      xmlns: NS_AGENT_TASK,
      'task-id': lexForBuild(target, 'task-id', value.taskId, lexIdentifier),
      'expected-revision': integerText(target, 'expected-revision', value.expectedRevision),
    },
    value.reason === undefined ? undefined : xml('reason', {}, legalText(task('reason'), value.reason)),
  );
}

export function parseCancelAccepted(element: Element): CancelAccepted {
  expectElement(element, 'cancel-accepted', NS_AGENT_TASK);
  checkAttributes(element, ['task-id', 'revision']);
  expectEmpty(element);
  return {
    taskId: lexAttribute(element, 'task-id', lexIdentifier),
    revision: lexAttribute(element, 'revision', lexNonNegativeInteger),
  };
}

export function buildCancelAccepted(value: CancelAccepted): Element {
  const target = task('cancel-accepted');
  return xml('cancel-accepted', {
    xmlns: NS_AGENT_TASK,
    'task-id': lexForBuild(target, 'task-id', value.taskId, lexIdentifier),
    revision: integerText(target, 'revision', value.revision),
  });
}
