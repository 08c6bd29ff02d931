// What the container tests ask the engine about a run, through testcontainers' client.
import { dockerClient } from '../testcontainers-loader.ts';

export interface ContainerSummary {
  readonly id: string;
  readonly names: readonly string[];
  readonly state: string;
}

/** Containers (running or not) carrying `label` (`key` or `key=value`). */
export async function listContainers(label: string): Promise<ContainerSummary[]> {
  const client = await dockerClient();
  const found = await client.container.dockerode.listContainers({ all: true, filters: { label: [label] } });
  return found.map((entry) => ({ id: entry.Id, names: entry.Names, state: entry.State }));
}

/** Whether a network with this name or id exists. */
export async function networkExists(nameOrId: string): Promise<boolean> {
  const client = await dockerClient();
  try {
    await client.network.getById(nameOrId).inspect();
    return true;
  } catch (error) {
    if ((error as { statusCode?: unknown }).statusCode === 404) return false;
    throw error;
  }
}
