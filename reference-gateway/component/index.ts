/** The reference gateway's XEP-0114 component: IQ routing, reconnection and the running gateway. */
export { backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.ts';
export { AttemptTimeout, GatewayConnectError, describeConnectFailure } from './connect-failure.ts';
export {
  GatewayComponent,
  discoverySettingsOf,
  gatewayRouterOf,
  type GatewayComponentOptions,
  type GatewayEvent,
  type GatewayIqRequest,
  type GatewayTiming,
} from './gateway-component.ts';
export {
  GatewayStartError,
  startGatewayRuntime,
  type GatewayRuntime,
  type GatewayRuntimeOptions,
  type GatewayStartStage,
} from './gateway-runtime.ts';
export { iqRouterOf, type IqRouterContext } from './gateway-routes.ts';
export { requesterOf, routeIq, type IqRouter } from './iq-router.ts';
export { DEFAULT_KEEPALIVE, Keepalive, type KeepalivePolicy } from './keepalive.ts';
export {
  DEFAULT_MAX_PENDING_IQS,
  OutboundIqError,
  OutboundIqTracker,
  type OutboundIqFailure,
  type OutboundIqReply,
} from './outbound-iq.ts';
