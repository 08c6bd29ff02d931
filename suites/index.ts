/**
 * Every suite, in the order a run executes them: the spec's section order, so the live output
 * reads like the spec's table of contents.
 */
import type { Suite } from './framework/case.ts';
import { endpointInfoSuite } from './sections/endpoint-info.ts';
import { findGatewaySuite } from './sections/find-gateway.ts';
import { gatewayInfoSuite } from './sections/gateway-info.ts';
import { listAgentsSuite } from './sections/list-agents.ts';

export const ALL_SUITES: readonly Suite[] = [
  findGatewaySuite,
  gatewayInfoSuite,
  listAgentsSuite,
  endpointInfoSuite,
];
