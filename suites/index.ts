/**
 * Every suite, in the order a run executes them: the spec's section order, so the live output
 * reads like the spec's table of contents.
 */
import type { Suite } from './framework/case.ts';
import { endpointInfoSuite } from './sections/endpoint-info.ts';
import { errorsSuite } from './sections/errors.ts';
import { findGatewaySuite } from './sections/find-gateway.ts';
import { gatewayInfoSuite } from './sections/gateway-info.ts';
import { errorsBadInput, jsonEncodingBadInput } from './sections/bad-input.ts';
import { i18nSuite } from './sections/i18n.ts';
import { identityPresenceSuite } from './sections/identity-presence.ts';
import { invocationSuite } from './sections/invocation.ts';
import { invocationCrashOnTheWire } from './sections/crash-on-the-wire.ts';
import { cancellationLinkFaults, eventsLinkFaults, invocationLinkFaults } from './sections/link-faults.ts';
import { jsonEncodingSuite } from './sections/json-encoding.ts';
import { jsonEncodingRawInput, securityRawInput } from './sections/raw-component-input.ts';
import { cancellationSuite } from './sections/cancellation.ts';
import { canonicalJsonSuite } from './sections/canonical-json.ts';
import { eventsSuite } from './sections/events.ts';
import { interactiveInputSuite } from './sections/interactive-input.ts';
import { taskRecoverySuite } from './sections/task-recovery.ts';
import { taskRecoveryServerRestart } from './sections/server-restart.ts';
import { taskStatesSuite } from './sections/task-states.ts';
import {
  cancellationRaces,
  idempotencyRaces,
  interactiveInputRaces,
  taskStatesRaces,
} from './sections/task-races.ts';
import { taskMessageRoutingSuite, idempotencySuite } from './sections/task-message-routing.ts';
import { listAgentsSuite } from './sections/list-agents.ts';
import { listToolsSuite } from './sections/list-tools.ts';
import { manifestSuite } from './sections/manifest.ts';
import { manifestRetrievalSuite } from './sections/manifest-retrieval.ts';
import { messagingSuite } from './sections/messaging.ts';
import { registrationFlowSuite } from './sections/registration-flow.ts';
import {
  listAgentsRsmProperties,
  listToolsRsmProperties,
  searchRsmProperties,
} from './sections/rsm-properties.ts';
import { rulesSuite } from './sections/rules.ts';
import { schemasSuite } from './sections/schemas.ts';
import { searchSuite } from './sections/search.ts';
import { privacySuite } from './sections/privacy.ts';
import { securitySuite } from './sections/security.ts';
import { toolInfoSuite } from './sections/tool-info.ts';

/** A section's cases followed by more of the same section declared in another file. */
function withCases(suite: Suite, more: Suite): Suite {
  if (more.section !== suite.section) throw new Error(`#${more.section} cases cannot join #${suite.section}`);
  return { ...suite, cases: [...suite.cases, ...more.cases] };
}

export const ALL_SUITES: readonly Suite[] = [
  findGatewaySuite,
  gatewayInfoSuite,
  withCases(listAgentsSuite, listAgentsRsmProperties),
  endpointInfoSuite,
  withCases(listToolsSuite, listToolsRsmProperties),
  toolInfoSuite,
  schemasSuite,
  identityPresenceSuite,
  withCases(searchSuite, searchRsmProperties),
  manifestSuite,
  registrationFlowSuite,
  manifestRetrievalSuite,
  withCases(withCases(jsonEncodingSuite, jsonEncodingBadInput), jsonEncodingRawInput),
  withCases(withCases(invocationSuite, invocationCrashOnTheWire), invocationLinkFaults),
  withCases(eventsSuite, eventsLinkFaults),
  withCases(interactiveInputSuite, interactiveInputRaces),
  withCases(withCases(cancellationSuite, cancellationLinkFaults), cancellationRaces),
  withCases(taskStatesSuite, taskStatesRaces),
  withCases(taskRecoverySuite, taskRecoveryServerRestart),
  taskMessageRoutingSuite,
  withCases(idempotencySuite, idempotencyRaces),
  messagingSuite,
  withCases(errorsSuite, errorsBadInput),
  rulesSuite,
  canonicalJsonSuite,
  i18nSuite,
  withCases(securitySuite, securityRawInput),
  privacySuite,
];
