/**
 * The task payloads of an inbound IQ, for the router: recognizes the agent-task request
 * elements, checks the IQ type each one needs, parses with the protocol codecs and hands the
 * parsed request to the engine. A payload that does not parse — an invalid task, request or
 * event identifier, a missing attribute, a wrong media type — answers bad-request (#errors,
 * #task-recovery: syntactically invalid identifiers get bad-request); so does a request sent
 * with the wrong IQ type. The parse error's text never reaches the wire.
 */
import type { Element } from '@xmpp/xml';
import { NS_AGENT_TASK } from '../../protocol/namespaces.ts';
import {
  StanzaParseError,
  localNameOf,
  namespaceOf,
  parseCancel,
  parseInvoke,
  parseProvideInput,
  parseTaskResultRequest,
  parseTaskStateRequest,
} from '../../protocol/stanza/index.ts';
import type { Requester } from '../catalog/catalog.ts';
import type { TaskEngine } from './task-engine.ts';
import { FAULT } from '../iq/faults.ts';
import { type Outcome, refuse } from '../iq/outcome.ts';

type Handler = (
  engine: TaskEngine,
  requester: Requester,
  target: string,
  payload: Element,
) => Outcome | Promise<Outcome>;

const HANDLERS: ReadonlyMap<string, { readonly iqType: 'get' | 'set'; readonly handle: Handler }> = new Map([
  ['invoke', { iqType: 'set', handle: (e, r, t, p) => e.invoke(r, t, parseInvoke(p)) }],
  ['cancel', { iqType: 'set', handle: (e, r, t, p) => e.cancel(r, t, parseCancel(p)) }],
  ['provide-input', { iqType: 'set', handle: (e, r, t, p) => e.provideInput(r, t, parseProvideInput(p)) }],
  [
    'task-state-request',
    { iqType: 'get', handle: (e, r, t, p) => e.taskState(r, t, parseTaskStateRequest(p)) },
  ],
  [
    'task-result-request',
    { iqType: 'get', handle: (e, r, t, p) => e.taskResult(r, t, parseTaskResultRequest(p)) },
  ],
]);

/** The agent-task request elements respondToTaskIq answers, whichever IQ type they come in. */
export const TASK_REQUEST_ELEMENTS: readonly string[] = [...HANDLERS.keys()];

/** The engine's answer to one task IQ, or undefined when the payload is not a task request. */
export async function respondToTaskIq(
  engine: TaskEngine,
  requester: Requester,
  targetJid: string,
  iqType: 'get' | 'set',
  payload: Element,
): Promise<Outcome | undefined> {
  if (namespaceOf(payload) !== NS_AGENT_TASK) return undefined;
  const handler = HANDLERS.get(localNameOf(payload));
  if (handler === undefined) return undefined;
  // errors.one-reply-per-iq: every task request gets exactly this one answer, the wrong IQ type
  // included.
  if (handler.iqType !== iqType) return refuse(FAULT.badRequest);
  try {
    return await handler.handle(engine, requester, targetJid, payload);
  } catch (error) {
    // invocation.required-parts, invocation.identifier-grammar, cancellation.deadline-format,
    // json-encoding.media-type-present, json-encoding.cdata-independent: the codecs (which read
    // character data whole, text and CDATA alike) refuse a request missing a part, with a
    // malformed identifier, a deadline without a zone or a wrong media type, before admission.
    if (error instanceof StanzaParseError) return refuse(FAULT.badRequest);
    throw error;
  }
}
