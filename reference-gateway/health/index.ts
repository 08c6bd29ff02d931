/** The gateway's optional HTTP health and readiness listener (config `health`). */
export { respondToHealthRequest, type HealthResponse, type HealthState } from './health-handlers.ts';
export { HealthListenError, startHealthListener, type HealthListener } from './health-listener.ts';
