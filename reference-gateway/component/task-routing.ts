/**
 * The task engine on the IQ table (#execution, #task-message-routing, #conformance).
 *
 * - Task requests (<invoke/>, <cancel/>, <provide-input/>, <task-state-request/>,
 *   <task-result-request/>) addressed to an endpoint bare JID go to the engine, which answers
 *   every one of them (exactly one reply, like every other responder). Addressed to the gateway
 *   JID or to a full JID nobody handles them (service-unavailable): caller commands are
 *   addressed to the target bare JID (interp-19 accepts that answer for full JIDs).
 * - Task features are advertised where they are implemented: at the endpoints a runtime
 *   executes, never at the gateway JID (which accepts no task request) nor at endpoints
 *   without a runtime. A tool node adds a feature only when its pinned manifest declares it
 *   too (discovery/tool-info.ts), which is the effective support the engine enforces.
 */
import { NS_AGENT_TASK } from '../../protocol/namespaces.ts';
import { checkDiscoverySettings, type DiscoverySettings } from '../discovery/index.ts';
import { classifyAddressee } from '../iq/addressing.ts';
import { FAULT } from '../iq/faults.ts';
import { UNHANDLED, bothTypes, type IqCall, type IqRoute } from '../iq/iq-table.ts';
import { refuse } from '../iq/outcome.ts';
import {
  TASK_REQUEST_ELEMENTS,
  respondToTaskIq,
  type TaskEngine,
  type TaskFeatures,
} from '../tasks/index.ts';

export interface TaskRouting {
  readonly engine: TaskEngine;
  /** Normalized endpoint bare JIDs whose tools a runtime executes. */
  readonly executable: ReadonlySet<string>;
  /** The discovery settings answered at those endpoints (the engine's task features on). */
  readonly settings: DiscoverySettings;
  readonly log: (line: string) => void;
}

export function taskRoutingOf(
  engine: TaskEngine,
  executable: Iterable<string>,
  features: TaskFeatures,
  base: DiscoverySettings,
  log: (line: string) => void,
): TaskRouting {
  return {
    engine,
    executable: new Set(executable),
    settings: checkDiscoverySettings({ ...base, taskFeatures: { core: true, ...features } }),
    log,
  };
}

/** The discovery settings for an IQ addressed to `to`: task features only at executable endpoints. */
export function discoverySettingsAt(
  to: string,
  base: DiscoverySettings,
  tasks: TaskRouting | undefined,
): DiscoverySettings {
  if (tasks === undefined) return base;
  const addressee = classifyAddressee(to, base.gatewayJid);
  return addressee.kind === 'endpoint' && tasks.executable.has(addressee.jid) ? tasks.settings : base;
}

/**
 * The task engine's rows of the gateway's IQ table: each task request element under both IQ
 * types (respondToTaskIq answers the wrong type with bad-request), served at endpoint bare JIDs
 * only; at the gateway or a full JID it is a request nobody handles.
 */
export function taskRoutes(tasks: TaskRouting): IqRoute[] {
  const handle = async ({ type, addressee, requester, payload }: IqCall) => {
    if (addressee.kind !== 'endpoint') return UNHANDLED;
    try {
      return (await respondToTaskIq(tasks.engine, requester, addressee.jid, type, payload)) ?? UNHANDLED;
    } catch (error) {
      // A store or runtime fault: the IQ still gets its one reply, and the log only the class name.
      tasks.log(`gateway: task request failed: ${error instanceof Error ? error.name : 'error'}`);
      return refuse(FAULT.internalServerError);
    }
  };
  return TASK_REQUEST_ELEMENTS.flatMap((element) => bothTypes(NS_AGENT_TASK, element, handle));
}
