/**
 * Reference gateway discovery, metadata and search responders (#discovery, #search,
 * #manifest-retrieval, #schemas): pure functions from a request, its requester, the addressed
 * JID, the catalog and the settings to a result payload or a typed stanza fault.
 */
export { respondToDiscovery, type DiscoveryRequest } from './dispatcher.ts';
export { discoveryRoutes, type DiscoveryRouteContext } from './discovery-routes.ts';
export {
  DiscoverySettingsError,
  checkDiscoverySettings,
  type DiscoverySettings,
  type GatewayFeatureSwitches,
  type TaskFeatureSwitches,
} from './settings.ts';
