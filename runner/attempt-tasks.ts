/**
 * The tasks one case attempt got admitted, read off the wire rather than asked of the case: every
 * <accepted/> any of the attempt's callers received, however the case invoked (a TaskSession, a
 * raw invoke, a replay after a fault). What the attempt started it must leave settled.
 */
import type { Caller } from '../harness/driver/index.ts';
import { NS_AGENT_TASK } from '../protocol/namespaces.ts';
import { isTerminal, type TaskState } from '../protocol/task-states.ts';

/** A task an attempt got admitted: who owns it (#task-recovery authorizes by bare JID) and where. */
export interface AdmittedTask {
  readonly taskId: string;
  /** The endpoint that admitted it (the <accepted/> reply's sender). */
  readonly target: string;
  /** The admitted caller's bare JID. */
  readonly owner: string;
  /** The resource the invocation came from: the events go there. */
  readonly invoker: Caller;
}

/** A caller as the attempt used it: stanzas from `since` on arrived during the attempt. */
export interface AttemptCaller {
  readonly caller: Caller;
  readonly since: number;
}

function admittedBy({ caller, since }: AttemptCaller): AdmittedTask[] {
  const admitted: AdmittedTask[] = [];
  for (const stanza of caller.inbound.slice(since)) {
    if (stanza.name !== 'iq' || stanza.type !== 'result' || stanza.from === undefined) continue;
    const accepted = stanza.element?.getChild('accepted', NS_AGENT_TASK);
    const taskId = accepted?.attrs['task-id'];
    if (typeof taskId !== 'string' || taskId === '') continue;
    admitted.push({ taskId, target: stanza.from, owner: caller.bareJid, invoker: caller });
  }
  return admitted;
}

/** Whether some caller of the attempt received the task's terminal event. */
function seenSettled(task: AdmittedTask, callers: readonly AttemptCaller[]): boolean {
  return callers.some(({ caller }) =>
    caller.events
      .all(task.taskId)
      .some((received) => received.valid && isTerminal(received.event.type as TaskState)),
  );
}

/**
 * The tasks the attempt's callers got admitted and saw no terminal event of, once each (an
 * idempotent replay admits the same task again).
 */
export function unsettledTasks(callers: readonly AttemptCaller[]): AdmittedTask[] {
  const byId = new Map<string, AdmittedTask>();
  for (const used of callers) {
    for (const task of admittedBy(used)) {
      const key = `${task.owner} ${task.target} ${task.taskId}`;
      if (!byId.has(key)) byId.set(key, task);
    }
  }
  return [...byId.values()].filter((task) => !seenSettled(task, callers));
}
