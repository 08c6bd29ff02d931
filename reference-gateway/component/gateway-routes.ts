/**
 * The gateway's IQ table, assembled from the rows each feature registers:
 *
 * - discovery, metadata and search payloads → discovery/discovery-routes.ts (#discovery,
 *   #search), under the per-principal rate limits of those operations (#security);
 * - XEP-0199 ping → health/ping-route.ts;
 * - Administrative Provisioning and self-registration, addressed to the gateway JID →
 *   registration/admin-routes.ts (#registration-flow);
 * - agent-task requests addressed to an endpoint bare JID → the task engine (task-routing.ts),
 *   when the gateway runs one; discovery at the endpoints it executes advertises the task
 *   features.
 *
 * Anything else is answered service-unavailable by the router (iq-router.ts).
 */
import type { Catalog } from '../catalog/catalog.ts';
import type { RateLimitedOperation } from '../config/limits.ts';
import { discoveryRoutes, type DiscoverySettings } from '../discovery/index.ts';
import { PING_ROUTES } from '../health/index.ts';
import { IqTable } from '../iq/iq-table.ts';
import type { RateLimiter } from '../policy/rate-limiter.ts';
import { adminRoutes } from '../registration/admin-routes.ts';
import type { Provisioning } from '../registration/provisioning.ts';
import type { IqRouter } from './iq-router.ts';
import { discoverySettingsAt, taskRoutes, type TaskRouting } from './task-routing.ts';

export interface IqRouterContext {
  /** The normalized component domain: the gateway's own JID. */
  readonly gatewayJid: string;
  readonly catalog: Catalog;
  readonly settings: DiscoverySettings;
  readonly provisioning: Provisioning;
  /** Whether non-admins on local domains may self-register (decides the refusal of unparsable <register/>). */
  readonly selfRegistration: boolean;
  /** The configured token buckets (limits.rateLimits); provisioning holds the same limiter. */
  readonly rateLimiter: RateLimiter<RateLimitedOperation>;
  /** The task engine and where it executes; without it no task request is served or advertised. */
  readonly tasks?: TaskRouting;
}

export function iqRouterOf(context: IqRouterContext): IqRouter {
  const { catalog, settings, rateLimiter, tasks } = context;
  const table = new IqTable([
    ...discoveryRoutes({
      catalog,
      rateLimiter,
      settingsAt: (to) => discoverySettingsAt(to, settings, tasks),
    }),
    ...PING_ROUTES,
    ...adminRoutes(context),
    ...(tasks === undefined ? [] : taskRoutes(tasks)),
  ]);
  return { gatewayJid: context.gatewayJid, table };
}
