// A minimal client for the Docker Engine API: enough to tell whether an engine answers, whether an
// image is there and what a container logged, without loading testcontainers (and dockerode with
// it). Speaks plain HTTP over the engine's unix socket, or over TCP for DOCKER_HOST=tcp://…
import { request } from 'node:http';
import { homedir } from 'node:os';
import { join } from 'node:path';

export type DockerEndpoint =
  | { readonly kind: 'unix'; readonly socketPath: string }
  | { readonly kind: 'tcp'; readonly host: string; readonly port: number };

export const DEFAULT_DOCKER_SOCKET = '/var/run/docker.sock';

export function describeEndpoint(endpoint: DockerEndpoint): string {
  return endpoint.kind === 'unix'
    ? `unix://${endpoint.socketPath}`
    : `tcp://${endpoint.host}:${endpoint.port}`;
}

/** Parses a DOCKER_HOST value (unix:// or tcp://); undefined for anything else (ssh://, npipe://). */
export function parseDockerHost(value: string): DockerEndpoint | undefined {
  if (value.startsWith('unix://')) return { kind: 'unix', socketPath: value.slice('unix://'.length) };
  const tcp = /^tcp:\/\/([^:/]+|\[[^\]]+\]):(\d+)\/?$/.exec(value);
  if (tcp?.[1] !== undefined && tcp[2] !== undefined) {
    return { kind: 'tcp', host: tcp[1].replace(/^\[|\]$/g, ''), port: Number(tcp[2]) };
  }
  return undefined;
}

/**
 * Where an engine may answer, in the order testcontainers looks: DOCKER_HOST when set (and only
 * it), else the system socket, then the usual rootless sockets.
 */
export function dockerEndpointCandidates(
  env: Readonly<Record<string, string | undefined>> = process.env,
  home: string = homedir(),
): DockerEndpoint[] {
  const dockerHost = env['DOCKER_HOST'];
  if (dockerHost !== undefined && dockerHost !== '') {
    const endpoint = parseDockerHost(dockerHost);
    return endpoint === undefined ? [] : [endpoint];
  }
  const candidates: DockerEndpoint[] = [{ kind: 'unix', socketPath: DEFAULT_DOCKER_SOCKET }];
  const runtimeDir = env['XDG_RUNTIME_DIR'];
  if (runtimeDir !== undefined && runtimeDir !== '') {
    candidates.push({ kind: 'unix', socketPath: join(runtimeDir, 'docker.sock') });
  }
  candidates.push({ kind: 'unix', socketPath: join(home, '.docker', 'run', 'docker.sock') });
  return candidates;
}

export interface DockerResponse {
  readonly status: number;
  readonly body: Buffer;
}

export class DockerApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'DockerApiError';
  }
}

/** One API call; rejects on a transport error or after `timeoutMs`, resolves with any HTTP status. */
export function dockerRequest(
  endpoint: DockerEndpoint,
  method: string,
  path: string,
  timeoutMs = 10_000,
  signal?: AbortSignal,
): Promise<DockerResponse> {
  return new Promise((resolve, reject) => {
    const target =
      endpoint.kind === 'unix'
        ? { socketPath: endpoint.socketPath }
        : { host: endpoint.host, port: endpoint.port };
    const req = request({ ...target, method, path, headers: { host: 'docker' }, signal }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        clearTimeout(timer);
        resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks) });
      });
      response.on('error', (error) => {
        clearTimeout(timer);
        reject(error);
      });
    });
    // 0: no time limit (long polls such as /wait).
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            req.destroy(
              new Error(`${describeEndpoint(endpoint)} did not answer ${method} ${path} in ${timeoutMs} ms`),
            );
          }, timeoutMs)
        : undefined;
    req.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    req.end();
  });
}

/** A call that must succeed (2xx); the engine's own message is passed on otherwise. */
export async function dockerCall(
  endpoint: DockerEndpoint,
  method: string,
  path: string,
  timeoutMs?: number,
  signal?: AbortSignal,
): Promise<Buffer> {
  const response = await dockerRequest(endpoint, method, path, timeoutMs, signal);
  if (response.status < 200 || response.status >= 300) {
    let message = response.body.toString('utf8');
    try {
      const parsed = JSON.parse(message) as { message?: unknown };
      if (typeof parsed.message === 'string') message = parsed.message;
    } catch {
      // not JSON: keep the text
    }
    throw new DockerApiError(response.status, `${method} ${path}: ${response.status} ${message}`);
  }
  return response.body;
}

export interface EngineVersion {
  readonly version: string;
  readonly apiVersion: string;
}

/** The engine's version if it answers at `endpoint` within `timeoutMs`, else undefined. */
export async function pingDockerEngine(
  endpoint: DockerEndpoint,
  timeoutMs = 3_000,
): Promise<EngineVersion | undefined> {
  try {
    const body = await dockerCall(endpoint, 'GET', '/version', timeoutMs);
    const parsed = JSON.parse(body.toString('utf8')) as { Version?: unknown; ApiVersion?: unknown };
    if (typeof parsed.Version !== 'string' || typeof parsed.ApiVersion !== 'string') return undefined;
    return { version: parsed.Version, apiVersion: parsed.ApiVersion };
  } catch {
    return undefined;
  }
}

/** Whether the engine has the image (by name:tag or id) locally. */
export async function imageExists(endpoint: DockerEndpoint, image: string): Promise<boolean> {
  const response = await dockerRequest(endpoint, 'GET', `/images/${encodeURIComponent(image)}/json`);
  if (response.status === 200) return true;
  if (response.status === 404) return false;
  throw new DockerApiError(response.status, `inspecting image ${image}: ${response.body.toString('utf8')}`);
}

/**
 * Splits the engine's multiplexed log stream (containers without a TTY): frames of an 8-byte header
 * (stream type, 3 zero bytes, big-endian length) followed by that many bytes.
 */
export function demultiplexLogs(buffer: Buffer): string {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset + 8 <= buffer.length) {
    const type = buffer[offset];
    const length = buffer.readUInt32BE(offset + 4);
    if (type === undefined || type > 2 || offset + 8 + length > buffer.length) break;
    parts.push(buffer.subarray(offset + 8, offset + 8 + length));
    offset += 8 + length;
  }
  // Not multiplexed after all (a TTY container): the bytes are the log.
  if (offset === 0 && buffer.length > 0) return buffer.toString('utf8');
  return Buffer.concat(parts).toString('utf8');
}

/** Everything the container wrote to stdout and stderr, of every run (it may be stopped). */
export async function containerLogs(endpoint: DockerEndpoint, id: string): Promise<string> {
  const body = await dockerCall(
    endpoint,
    'GET',
    `/containers/${encodeURIComponent(id)}/logs?stdout=true&stderr=true&follow=false`,
  );
  return demultiplexLogs(body);
}

/**
 * Resolves with the exit code once the container is not running (at once if it is not). Waits as
 * long as it takes unless `signal` aborts it (then it rejects with the abort).
 */
export async function waitForContainerExit(
  endpoint: DockerEndpoint,
  id: string,
  signal?: AbortSignal,
): Promise<number> {
  const body = await dockerCall(
    endpoint,
    'POST',
    `/containers/${encodeURIComponent(id)}/wait?condition=not-running`,
    0,
    signal,
  );
  const parsed = JSON.parse(body.toString('utf8')) as { StatusCode?: unknown };
  return typeof parsed.StatusCode === 'number' ? parsed.StatusCode : -1;
}

export interface ContainerSummary {
  readonly id: string;
  readonly names: readonly string[];
  readonly state: string;
  readonly labels: Readonly<Record<string, string>>;
}

/** Containers (running or not) carrying `label` (`key` or `key=value`). */
export async function listContainers(endpoint: DockerEndpoint, label: string): Promise<ContainerSummary[]> {
  const filters = encodeURIComponent(JSON.stringify({ label: [label] }));
  const body = await dockerCall(endpoint, 'GET', `/containers/json?all=true&filters=${filters}`);
  const parsed = JSON.parse(body.toString('utf8')) as {
    Id: string;
    Names?: string[];
    State?: string;
    Labels?: Record<string, string>;
  }[];
  return parsed.map((entry) => ({
    id: entry.Id,
    names: entry.Names ?? [],
    state: entry.State ?? '',
    labels: entry.Labels ?? {},
  }));
}

/** Whether a network with this name or id exists. */
export async function networkExists(endpoint: DockerEndpoint, nameOrId: string): Promise<boolean> {
  const response = await dockerRequest(endpoint, 'GET', `/networks/${encodeURIComponent(nameOrId)}`);
  if (response.status === 200) return true;
  if (response.status === 404) return false;
  throw new DockerApiError(
    response.status,
    `inspecting network ${nameOrId}: ${response.body.toString('utf8')}`,
  );
}
