/**
 * The executable model of the spec's observable rules (README.md beside this file): worlds,
 * and for each operation the set of answers the spec accepts.
 */
export * from './world.ts';
export * from './world-file.ts';
export * from './expectation.ts';
export * from './access.ts';
export * from './paging.ts';
export * from './directory.ts';
export * from './search.ts';
export * from './endpoint-discovery.ts';
export * from './metadata.ts';
export * from './invocation.ts';
export * from './limits.ts';
export * from './presence.ts';
export * from './provisioning.ts';
export * from './messaging.ts';
export * from './tasks.ts';
export * from './metered-requests.ts';
