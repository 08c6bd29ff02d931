// Every federation started in this process and not yet stopped. Processes and run directories are
// also torn down by the exit cleanups when the process ends; this registry lets test hooks (and
// the CLI on Ctrl-C) stop everything politely first.
import type { Federation } from './server-provider.ts';

const live = new Set<Federation>();

export function addLiveFederation(federation: Federation): void {
  live.add(federation);
}

export function removeLiveFederation(federation: Federation): void {
  live.delete(federation);
}

export function liveFederations(): readonly Federation[] {
  return [...live];
}

export async function stopAllFederations(): Promise<void> {
  await Promise.all([...live].map((federation) => federation.stop()));
}
