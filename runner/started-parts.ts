/**
 * What a session has started so far, stopped in reverse order exactly once: by the end of a run
 * and by a start that failed half-way alike, so there is one teardown to read.
 */
import type { Driver } from '../harness/driver/index.ts';
import type { Federation } from '../harness/federation/server-provider.ts';
import type { SutInstance } from '../harness/sut/launch.ts';
import type { ServedConformanceTools } from '../harness/sut/served-conformance-tools.ts';
import type { ProvisionedWorld } from './admin-fixtures.ts';

export class StartedParts {
  readonly federation: Federation;
  readonly driver: Driver;
  servedTools: ServedConformanceTools | undefined;
  sut: SutInstance | undefined;
  provisioned: ProvisionedWorld | undefined;
  /** Set around deliberate kills and by the teardown: the gateway exit that follows is no crash. */
  expectingExit = false;
  readonly #log: (line: string) => void;
  #stopping: Promise<void> | undefined;

  constructor(federation: Federation, driver: Driver, log: (line: string) => void) {
    this.federation = federation;
    this.driver = driver;
    this.#log = log;
  }

  stop(): Promise<void> {
    this.#stopping ??= this.#stopAll();
    return this.#stopping;
  }

  async #stopAll(): Promise<void> {
    const created = this.provisioned;
    this.provisioned = undefined;
    if (created !== undefined) {
      const failures = await created.cleanup().catch((error: unknown) => [String(error)]);
      for (const failure of failures) this.#log(`fixtures: cleanup: ${failure}`);
    }
    this.expectingExit = true;
    // The local caller may be connected already (the features query failed after its login).
    await this.driver.closeAll();
    await this.sut?.stop().catch(() => undefined);
    await this.servedTools?.close().catch(() => undefined);
    await this.federation.stop();
  }
}
