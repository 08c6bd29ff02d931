/**
 * Test-only variants of the reference gateway as a CALLER (its conformance.call-out tool, declared
 * in fixtures/sut/reference-gateway-caller.json): each derives its SUT file from that one. The
 * gateway calls out through the shared caller engine (reference-caller/), so a broken caller rule
 * is the same patch as the bridge variant breaking it (bridge-variants.ts), applied to the gateway
 * copy: the caller-side case that judges that rule must fail the gateway on it.
 */
import { variantPatches, type GatewayVariant } from './gateway-variants.ts';

export interface GatewayCallerVariant extends GatewayVariant {
  /** The caller case that must fail it, and the requirement it must cite. */
  readonly caseId: string;
  readonly violates: string;
}

/** The calling gateway's SUT file in fixtures/sut/. */
export const GATEWAY_CALLER_SUT = 'reference-gateway-caller.json';

function fromEnginePatch(
  name: string,
  patch: string,
  change: string,
  caseId: string,
  violates: string,
): GatewayCallerVariant {
  return { name, change, patches: variantPatches(patch), base: GATEWAY_CALLER_SUT, caseId, violates };
}

/** After a lost `<accepted/>`, the gateway's retry carries a fresh request ID (#invocation). */
export const GATEWAY_CALLER_RETRIES_NEW_ID = fromEnginePatch(
  'gateway-caller-retries-new-id',
  'bridge-retries-new-id',
  'a lost <accepted/> is retried with a fresh request ID',
  'invocation.caller-retry-identical-after-lost-accepted',
  'invocation.caller-retries-identically',
);

/** An event at a known revision with another event ID or payload is applied, not ignored (#events). */
export const GATEWAY_CALLER_ACCEPTS_CONFLICTING_REVISION = fromEnginePatch(
  'gateway-caller-accepts-conflicting-revision',
  'bridge-accepts-conflicting-revision',
  'a conflicting event at a known revision replaces the one seen and is applied',
  'events.caller-ignores-conflicting-revision',
  'events.caller-ignores-conflicting-revision',
);

/** Task commands go to the full JID the task's events come from (#task-message-routing). */
export const GATEWAY_CALLER_COMMANDS_TO_FULL_JID = fromEnginePatch(
  'gateway-caller-commands-to-full-jid',
  'bridge-commands-to-full-jid',
  "cancel and task-state go to the full JID the task's last accepted event came from",
  'task-message-routing.caller-commands-to-bare-jid',
  'task-message-routing.bare-jid-commands',
);

/**
 * The call-out's IQs leave as the remote target's own bare JID, the component's sender guard
 * gone (#security): its server may refuse them, but the gateway sent them, and its component
 * link shows it.
 */
export const GATEWAY_CALLER_SENDS_AS_TARGET = fromEnginePatch(
  'gateway-caller-sends-as-target',
  'gateway-caller-sends-as-target',
  "the call-out's IQs are sent from the remote target's bare JID (no sender guard)",
  'security.caller-sends-as-itself',
  'security.caller-no-spoofing',
);

export const BROKEN_GATEWAY_CALLER_VARIANTS: readonly GatewayCallerVariant[] = [
  GATEWAY_CALLER_RETRIES_NEW_ID,
  GATEWAY_CALLER_ACCEPTS_CONFLICTING_REVISION,
  GATEWAY_CALLER_COMMANDS_TO_FULL_JID,
  GATEWAY_CALLER_SENDS_AS_TARGET,
];

// ---------------------------------------------------------------------------------------------
// Permitted variants: a calling gateway that does one of these still passes every caller case.

/**
 * Polling instead of events: of the remote task's lifecycle events only progress is read; its
 * state and result come from task-state and task-result every second (the shared engine's
 * bridge-polls patch, with the call-out's pollSeconds at 1): #task-message-routing lets a caller
 * rely on queries, never on notifications.
 */
export const GATEWAY_CALLER_POLLS: GatewayVariant = {
  name: 'gateway-caller-polls',
  change: 'only progress is read from the remote events; state and result are polled every second',
  patches: variantPatches('bridge-polls'),
  base: GATEWAY_CALLER_SUT,
  sut: (sut) => {
    const config = sut.launch.files['gateway.json'] as unknown as { callOut: { pollSeconds?: number } };
    config.callOut.pollSeconds = 1;
  },
};

/**
 * The call-out waits half the timeoutSeconds it is given (#cancellation: the caller's limit is
 * its own). Only the waits of calls can tell: the cancellation and invocation caller cases judge it.
 */
export const GATEWAY_CALLER_STRICTER_TIMEOUT: PermittedGatewayCallerVariant = {
  name: 'gateway-caller-stricter-timeout',
  change: "the call-out's local wait is half the timeoutSeconds asked for",
  patches: variantPatches('gateway-caller-stricter-timeout'),
  base: GATEWAY_CALLER_SUT,
  judgedBy: ['cancellation.caller-', 'invocation.caller-'],
};

export interface PermittedGatewayCallerVariant extends GatewayVariant {
  /** The caller cases (ID prefixes) its change can reach; absent: every caller case. */
  readonly judgedBy?: readonly string[];
}

export const PERMITTED_GATEWAY_CALLER_VARIANTS: readonly PermittedGatewayCallerVariant[] = [
  GATEWAY_CALLER_POLLS,
  GATEWAY_CALLER_STRICTER_TIMEOUT,
];
