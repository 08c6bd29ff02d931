/**
 * A suite CaseContext over an integration test's own federation, for the files that run a
 * conformance case against a specially configured reference gateway (late output, short
 * retention): the local role is bob, the world the reference one, every other role refused.
 */
import { AttemptBudget } from '../../suites/framework/budget.ts';
import type { Caller } from '../../harness/driver/index.ts';
import type { ProfileId } from '../../protocol/profiles.ts';
import type { CallerPool, CaseContext } from '../../suites/framework/context.ts';
import { SeededRandom } from '../../suites/framework/seeded-random.ts';
import { loadReferenceWorld, REFERENCE_WORLD_FILE } from '../../suites/fixtures/reference-world.ts';
import { ALICE, BOB, CAROL, GATEWAY, type GatewayFederation } from './gateway-federation.ts';
import { EVENT_TIMEOUT_MS } from './tasks.ts';

export interface LocalCaseContextOptions {
  readonly world: () => GatewayFederation;
  /** The SUT name the case reports. */
  readonly name: string;
  /** The profile the case is run for. */
  readonly profile: ProfileId;
  readonly seed: number;
  /** Where SHOULD-level findings go; dropped when absent. */
  readonly warnings?: string[];
}

export function localCaseContext(options: LocalCaseContextOptions): CaseContext {
  const { world, seed, warnings } = options;
  const roles = { local: BOB, remote: ALICE, remotePeer: CAROL, denied: 'mallory@hostile.example' };
  const unused = (): Promise<Caller> => Promise.reject(new Error('this case uses the local caller only'));
  const callers: CallerPool = {
    local: () => world().caller(BOB, `suite-${String(seed)}`),
    remote: unused,
    remotePeer: unused,
    localPeer: unused,
    denied: unused,
    admin: unused,
    registrant: unused,
    prober: unused,
    toolGrantee: unused,
    sibling: unused,
  };
  return {
    sut: {
      name: options.name,
      gatewayJid: GATEWAY,
      profiles: new Set([options.profile]),
      features: new Set(),
      replyTimeoutMs: EVENT_TIMEOUT_MS,
      taskTimeoutMs: EVENT_TIMEOUT_MS,
    },
    callers,
    random: new SeededRandom(seed),
    budget: new AttemptBudget(false),
    world: loadReferenceWorld(REFERENCE_WORLD_FILE, roles),
    warn: (requirement, message) => {
      warnings?.push(`${requirement}: ${message}`);
    },
  };
}
