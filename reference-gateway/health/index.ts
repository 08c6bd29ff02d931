/** The gateway's liveness: the optional HTTP health and readiness listener (config `health`), and XEP-0199 ping. */
export { respondToHealthRequest, type HealthResponse, type HealthState } from './health-handlers.ts';
export { HealthListenError, startHealthListener, type HealthListener } from './health-listener.ts';
export { PING_ROUTES } from './ping-route.ts';
