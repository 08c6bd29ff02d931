/**
 * What the health listener answers (docs/gateway-config.md, "Health listener"), as a pure
 * function of the request line and the gateway's state, so every answer is testable without a
 * socket.
 *
 * - `GET /health`: 200 while the process runs and answers at all (liveness: a supervisor
 *   restarts a process that stops answering it).
 * - `GET /ready`: 200 only while the component stream is online and the store is open, else 503
 *   (readiness: a load balancer or the harness waits for it; a gateway that lost its server is
 *   alive but cannot serve, and reconnects by itself).
 * - another path: 404; another method: 405 with `Allow: GET`.
 *
 * Bodies are small JSON objects that name states, never configuration, addresses or secrets:
 * the listener may be reachable by more people than the config file.
 */

export interface HealthState {
  /** The component stream is up (handshake done, not yet lost). */
  readonly componentOnline: () => boolean;
  /** The database is open. */
  readonly storeOpen: () => boolean;
}

export interface HealthResponse {
  readonly status: 200 | 404 | 405 | 503;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

const JSON_HEADERS = {
  'content-type': 'application/json; charset=utf-8',
  // A cached "ready" would be a lie a moment later.
  'cache-control': 'no-store',
} as const;

function json(
  status: HealthResponse['status'],
  body: object,
  extra: Record<string, string> = {},
): HealthResponse {
  return { status, headers: { ...JSON_HEADERS, ...extra }, body: `${JSON.stringify(body)}\n` };
}

/** The path of a request target, without its query (`/ready?x=1` is `/ready`). */
function pathOf(target: string): string {
  const query = target.indexOf('?');
  return query === -1 ? target : target.slice(0, query);
}

export function respondToHealthRequest(
  method: string | undefined,
  target: string | undefined,
  state: HealthState,
): HealthResponse {
  const path = pathOf(target ?? '');
  if (path !== '/health' && path !== '/ready') return json(404, { error: 'not-found' });
  if (method !== 'GET') return json(405, { error: 'method-not-allowed' }, { allow: 'GET' });
  if (path === '/health') return json(200, { status: 'ok' });
  const component = state.componentOnline() ? 'online' : 'offline';
  const store = state.storeOpen() ? 'open' : 'closed';
  const ready = component === 'online' && store === 'open';
  return json(ready ? 200 : 503, { ready, component, store });
}
