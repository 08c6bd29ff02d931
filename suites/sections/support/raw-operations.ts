/**
 * Task operations as raw elements, for cases that send what the codec would refuse, and the
 * operations the conformance endpoint offers.
 */
import { xml, type Element } from '@xmpp/xml';
import type { Caller } from '../../../harness/driver/index.ts';
import { FEATURE, NS_AGENT_TASK } from '../../../protocol/namespaces.ts';
import { expectDiscoInfo } from '../../framework/expect.ts';
import { discoInfo } from './discovery.ts';
import type { TaskTarget } from './task-target.ts';

/** The four task operations a caller sends about an existing task (#task-recovery, #cancellation, #interactive-input). */
export type TaskOperation = 'task-state-request' | 'task-result-request' | 'cancel' | 'provide-input';

/**
 * A task operation naming `taskId` as given, which may be one the codec would refuse (outside
 * the identifier grammar): revision 0 and, for input, a well-formed request ID and `{}`.
 */
export function rawTaskOperation(operation: TaskOperation, taskId: string): Element {
  const attrs = { xmlns: NS_AGENT_TASK, 'task-id': taskId };
  switch (operation) {
    case 'task-state-request':
    case 'task-result-request':
      return xml(operation, attrs);
    case 'cancel':
      return xml('cancel', { ...attrs, 'expected-revision': '0' });
    case 'provide-input':
      return xml(
        'provide-input',
        { ...attrs, 'request-id': 'req-agentconf-malformed-probe-0', 'expected-revision': '0' },
        xml('input', { 'media-type': 'application/json' }, '{}'),
      );
  }
}

/** The IQ type each task operation travels in. */
export function operationIqType(operation: TaskOperation): 'get' | 'set' {
  return operation === 'task-state-request' || operation === 'task-result-request' ? 'get' : 'set';
}

/**
 * The task operations the conformance endpoint offers besides state and result: cancel and
 * provide-input only where it advertises #cancel and #input (a gateway may refuse an optional
 * feature it does not offer with service-unavailable whatever the task, interp-38).
 */
export async function offeredTaskOperations(caller: Caller, target: TaskTarget): Promise<TaskOperation[]> {
  const info = expectDiscoInfo(await discoInfo(caller, target.jid), 'endpoint-info.disco-info');
  return [
    'task-state-request',
    'task-result-request',
    ...(info.features.includes(FEATURE.taskCancel) ? (['cancel'] as const) : []),
    ...(info.features.includes(FEATURE.taskInput) ? (['provide-input'] as const) : []),
  ];
}
