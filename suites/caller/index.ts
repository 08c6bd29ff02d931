/**
 * Every caller suite (docs/caller.md), in the spec's section order like suites/index.ts: the
 * cases that judge a caller under test (an MCP bridge, a calling gateway) against the fake target.
 */
import type { CallerSuite } from './framework/caller-case.ts';
import { eventJsonSchemasCallerSuite, eventsCallerSuite } from './events/index.ts';
import { invocationCallerSuite } from './invocation/index.ts';

export const ALL_CALLER_SUITES: readonly CallerSuite[] = [
  eventJsonSchemasCallerSuite,
  invocationCallerSuite,
  eventsCallerSuite,
];
