/**
 * The gateway launched while the servers start (FederationOptions.whileBooting): its own start
 * (process, modules, fixture world) overlaps theirs, and its component connection waits at the
 * link until they are up, as it would for a slow server. The run still judges readiness by the
 * probe's answer once the servers are up.
 *
 * Only where nothing has to happen between the two: the harness launches the gateway, serves no
 * conformance tools for it, prints no operator checklist before it, and the component link is
 * this run's own (no fixed port, a generated secret). A gateway left over from an earlier run
 * cannot know that link, so the stale-gateway probe before a launch has nothing to find there;
 * a SUT file that fixes the port or the secret keeps the probe, and the launch after the boot.
 */
import type { Federation } from '../harness/federation/server-provider.ts';
import type { SutInstance } from '../harness/sut/launch.ts';
import type { SutConfig } from '../harness/sut/sut-config.ts';
import { componentLinkRequest } from './federation-request.ts';

export function launchesWhileBooting(config: SutConfig): boolean {
  const link = componentLinkRequest(config);
  return (
    config.launch !== 'external' &&
    config.conformanceTools !== 'mcp-http' &&
    config.fixtures !== 'admin-iq' &&
    link.port === undefined &&
    link.secret === undefined
  );
}

export class EarlyLaunch {
  readonly #launch: (federation: Federation) => Promise<SutInstance>;
  #launching: Promise<SutInstance> | undefined;

  constructor(launch: (federation: Federation) => Promise<SutInstance>) {
    this.#launch = launch;
  }

  /** The whileBooting hook. */
  readonly start = (federation: Federation): void => {
    const launching = this.#launch(federation);
    // Read by `launched` once the servers are up; a boot that fails reads it in `abandon`.
    launching.catch(() => undefined);
    this.#launching = launching;
  };

  /** The launch begun while booting, if any (rejects as it did). */
  get launched(): Promise<SutInstance> | undefined {
    return this.#launching;
  }

  /** After a boot that failed: stops the gateway launched meanwhile. */
  async abandon(): Promise<void> {
    const sut = await this.#launching?.catch(() => undefined);
    await sut?.stop(0).catch(() => undefined);
  }
}
