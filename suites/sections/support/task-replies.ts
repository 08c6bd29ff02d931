/** The replies to task operations, parsed and required to be what the operation returns. */
import type { IqExchange } from '../../../harness/driver/index.ts';
import { isIdentifier } from '../../../protocol/identifiers.ts';
import { NS_AGENT_TASK } from '../../../protocol/namespaces.ts';
import {
  parseAccepted,
  parseCancelAccepted,
  parseInputAccepted,
  parseTaskResult,
  parseTaskState,
  type Accepted,
  type CancelAccepted,
  type InputAccepted,
  type Invoke,
  type TaskResult,
  type TaskState,
} from '../../../protocol/stanza/index.ts';
import { expectThat, expectParsedResult } from '../../framework/expect.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';

/**
 * The reply must be a durable admission: <accepted/> echoing the request ID, revision 0, a task
 * ID of the identifier grammar, and a retention promise no earlier than the creation (#invocation).
 */
export function expectAccepted(exchange: IqExchange, requirement: RequirementId, invoke: Invoke): Accepted {
  const replyXml = exchange.reply.xml;
  const accepted = expectParsedResult(exchange, requirement, NS_AGENT_TASK, 'accepted', parseAccepted);
  expectThat(
    replyXml,
    requirement,
    `request-id='${invoke.requestId}'`,
    accepted.requestId === invoke.requestId,
  );
  expectThat(replyXml, requirement, `revision='0' (the accepted state)`, accepted.revision === 0);
  expectThat(
    replyXml,
    'invocation.identifier-grammar',
    'a task-id of 22 to 128 characters from [A-Za-z0-9._~-]',
    isIdentifier(accepted.taskId),
  );
  expectThat(
    replyXml,
    requirement,
    'retain-until no earlier than created',
    accepted.retainUntil.epochSeconds >= accepted.created.epochSeconds,
  );
  return accepted;
}

export function expectTaskState(exchange: IqExchange, requirement: RequirementId): TaskState {
  return expectParsedResult(exchange, requirement, NS_AGENT_TASK, 'task-state', parseTaskState);
}

export function expectTaskResult(exchange: IqExchange, requirement: RequirementId): TaskResult {
  return expectParsedResult(exchange, requirement, NS_AGENT_TASK, 'task-result', parseTaskResult);
}

export function expectCancelAccepted(exchange: IqExchange, requirement: RequirementId): CancelAccepted {
  return expectParsedResult(exchange, requirement, NS_AGENT_TASK, 'cancel-accepted', parseCancelAccepted);
}

export function expectInputAccepted(exchange: IqExchange, requirement: RequirementId): InputAccepted {
  return expectParsedResult(exchange, requirement, NS_AGENT_TASK, 'input-accepted', parseInputAccepted);
}
