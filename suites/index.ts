/**
 * Every suite, in the order a run executes them: the spec's section order, so the live output
 * reads like the spec's table of contents. Each section's folder declares all of its cases,
 * whatever their scenario family (sections/<anchor>/index.ts).
 */
import type { Suite } from './framework/case.ts';
import { findGatewaySuite } from './sections/find-gateway/index.ts';
import { gatewayInfoSuite } from './sections/gateway-info/index.ts';
import { listAgentsSuite } from './sections/list-agents/index.ts';
import { endpointInfoSuite } from './sections/endpoint-info/index.ts';
import { listToolsSuite } from './sections/list-tools/index.ts';
import { toolInfoSuite } from './sections/tool-info/index.ts';
import { schemasSuite } from './sections/schemas/index.ts';
import { identityPresenceSuite } from './sections/identity-presence/index.ts';
import { searchSuite } from './sections/search/index.ts';
import { manifestSuite } from './sections/manifest/index.ts';
import { registrationFlowSuite } from './sections/registration-flow/index.ts';
import { manifestRetrievalSuite } from './sections/manifest-retrieval/index.ts';
import { jsonEncodingSuite } from './sections/json-encoding/index.ts';
import { invocationSuite } from './sections/invocation/index.ts';
import { eventsSuite } from './sections/events/index.ts';
import { interactiveInputSuite } from './sections/interactive-input/index.ts';
import { cancellationSuite } from './sections/cancellation/index.ts';
import { taskStatesSuite } from './sections/task-states/index.ts';
import { taskRecoverySuite } from './sections/task-recovery/index.ts';
import { taskMessageRoutingSuite } from './sections/task-message-routing/index.ts';
import { idempotencySuite } from './sections/idempotency/index.ts';
import { messagingSuite } from './sections/messaging/index.ts';
import { errorsSuite } from './sections/errors/index.ts';
import { rulesSuite } from './sections/rules/index.ts';
import { canonicalJsonSuite } from './sections/canonical-json/index.ts';
import { i18nSuite } from './sections/i18n/index.ts';
import { securitySuite } from './sections/security/index.ts';
import { privacySuite } from './sections/privacy/index.ts';

export const ALL_SUITES: readonly Suite[] = [
  findGatewaySuite,
  gatewayInfoSuite,
  listAgentsSuite,
  endpointInfoSuite,
  listToolsSuite,
  toolInfoSuite,
  schemasSuite,
  identityPresenceSuite,
  searchSuite,
  manifestSuite,
  registrationFlowSuite,
  manifestRetrievalSuite,
  jsonEncodingSuite,
  invocationSuite,
  eventsSuite,
  interactiveInputSuite,
  cancellationSuite,
  taskStatesSuite,
  taskRecoverySuite,
  taskMessageRoutingSuite,
  idempotencySuite,
  messagingSuite,
  errorsSuite,
  rulesSuite,
  canonicalJsonSuite,
  i18nSuite,
  securitySuite,
  privacySuite,
];
