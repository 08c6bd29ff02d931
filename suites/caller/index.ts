/**
 * Every caller suite (docs/caller.md), in the spec's section order like suites/index.ts: the
 * cases that judge a caller under test (an MCP bridge, a calling gateway) against the fake target.
 */
import type { CallerSuite } from './framework/caller-case.ts';
import { cancellationCallerSuite } from './cancellation/index.ts';
import { eventJsonSchemasCallerSuite, eventsCallerSuite } from './events/index.ts';
import { findGatewayCallerSuite } from './find-gateway/index.ts';
import { invocationCallerSuite } from './invocation/index.ts';
import { jsonEncodingCallerSuite } from './json-encoding/index.ts';
import { manifestRetrievalCallerSuite } from './manifest-retrieval/index.ts';
import { mcpMappingCallerSuite } from './mcp-mapping/index.ts';
import { securityCallerSuite } from './security/index.ts';
import { taskMessageRoutingCallerSuite } from './task-message-routing/index.ts';
import { useCaseDiscoveryCallerSuite } from './use-case-discovery/index.ts';

export const ALL_CALLER_SUITES: readonly CallerSuite[] = [
  useCaseDiscoveryCallerSuite,
  findGatewayCallerSuite,
  manifestRetrievalCallerSuite,
  jsonEncodingCallerSuite,
  eventJsonSchemasCallerSuite,
  invocationCallerSuite,
  eventsCallerSuite,
  cancellationCallerSuite,
  taskMessageRoutingCallerSuite,
  securityCallerSuite,
  // #mcp-mapping sits in the informative #impl section, after every normative one.
  mcpMappingCallerSuite,
];
