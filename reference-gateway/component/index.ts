/** The reference gateway's XEP-0114 component: IQ routing, reconnection and the running gateway. */
export { backoffDelay, DEFAULT_BACKOFF, type BackoffPolicy } from './backoff.ts';
export {
  GatewayComponent,
  discoverySettingsOf,
  type GatewayComponentOptions,
  type GatewayEvent,
  type GatewayTiming,
} from './gateway-component.ts';
export { requesterOf, routeIq, type IqRouterContext } from './iq-router.ts';
