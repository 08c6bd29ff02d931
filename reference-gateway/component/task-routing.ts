/**
 * The task engine on the IQ router (#execution, #task-message-routing, #conformance).
 *
 * - Task requests (<invoke/>, <cancel/>, <provide-input/>, <task-state-request/>,
 *   <task-result-request/>) addressed to an endpoint bare JID go to the engine, which answers
 *   every one of them (exactly one reply, like every other responder). Addressed to the gateway
 *   JID or to a full JID they fall through to service-unavailable: caller commands are
 *   addressed to the target bare JID (interp-19 accepts that answer for full JIDs).
 * - Task features are advertised where they are implemented: at the endpoints a runtime
 *   executes, never at the gateway JID (which accepts no task request) nor at endpoints
 *   without a runtime. A tool node adds a feature only when its pinned manifest declares it
 *   too (discovery/tool-info.ts), which is the effective support the engine enforces.
 */
import type { Element } from '@xmpp/xml';
import type { Requester } from '../catalog/catalog.ts';
import { classifyAddressee } from '../discovery/addressing.ts';
import { checkDiscoverySettings, type DiscoverySettings } from '../discovery/index.ts';
import { FAULT } from '../iq/faults.ts';
import type { Outcome } from '../iq/outcome.ts';
import { isTaskPayload, respondToTaskIq, type TaskEngine, type TaskFeatures } from '../tasks/index.ts';

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
 * The engine's answer to a task request addressed to an endpoint, or undefined when the payload
 * is no task request or is not addressed to an endpoint bare JID.
 */
export async function respondToTaskRequest(
  request: { readonly iqType: 'get' | 'set'; readonly to: string; readonly payload: Element },
  requester: Requester,
  tasks: TaskRouting,
): Promise<Outcome | undefined> {
  if (!isTaskPayload(request.payload)) return undefined;
  const addressee = classifyAddressee(request.to, tasks.settings.gatewayJid);
  if (addressee.kind !== 'endpoint') return undefined;
  try {
    return await respondToTaskIq(tasks.engine, requester, addressee.jid, request.iqType, request.payload);
  } catch (error) {
    // A store or runtime fault: the IQ still gets its one reply, and the log only the class name.
    tasks.log(`gateway: task request failed: ${error instanceof Error ? error.name : 'error'}`);
    return { ok: false, fault: FAULT.internalServerError };
  }
}
