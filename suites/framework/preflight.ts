/**
 * Before any case: does the gateway speak this protocol at all, and does it advertise what each
 * claimed profile requires (#conformance, interp-43)? A claim makes the profile's required
 * features mandatory at the gateway, at the endpoints and at the conformance tools' nodes, so
 * a missing one is the root cause of every dependent failure: it is reported once, in one line
 * naming what was found instead, its profile fails, and the cases that only that profile
 * needs are reported as blocked by it instead of as separate findings.
 *
 * Only the features a profile *requires* are checked; optional ones (RSM, #progress on a tool
 * that does not declare it, …) stay with capability gating in the cases.
 */
import { xml } from '@xmpp/xml';
import type { Caller } from '../../harness/driver/index.ts';
import { FEATURE, NS } from '../../protocol/namespaces.ts';
import { PROFILE_TITLES, type ProfileId } from '../../protocol/profiles.ts';
import { parseDiscoInfo } from '../../protocol/stanza/index.ts';
import type { ReferenceWorld } from '../fixtures/reference-world.ts';
import { MissingFixture } from './verdicts.ts';

/** What a claim of the profile makes the SUT advertise, and where (#conformance). */
interface RequiredFeatures {
  /** At the gateway's JID. */
  readonly gateway?: readonly string[];
  /** At every active endpoint the local caller may see. */
  readonly endpoint?: readonly string[];
  /** At the conformance tools' endpoint (docs/conformance-tools.md). */
  readonly taskEndpoint?: readonly string[];
  /** At the node of the conformance tool `script`, which declares every task feature. */
  readonly taskTool?: readonly string[];
}

export const PROFILE_REQUIRED_FEATURES: Readonly<Record<ProfileId, RequiredFeatures>> = {
  'core-directory': { gateway: [FEATURE.directory], endpoint: [FEATURE.endpoint] },
  'jabber-search': { gateway: [NS.search] },
  'tool-discovery': { endpoint: [FEATURE.manifest, FEATURE.schema], taskTool: [FEATURE.tool] },
  'task-execution': { taskEndpoint: [FEATURE.task] },
  'interactive-tasks': {
    taskEndpoint: [FEATURE.taskProgress, FEATURE.taskCancel, FEATURE.taskInput],
    taskTool: [FEATURE.taskProgress, FEATURE.taskCancel, FEATURE.taskInput],
  },
  'self-registration': { gateway: [FEATURE.selfRegister] },
  // #admin may be replaced by local administration (#provisioning): its absence leaves the
  // profile untestable here, not failed; see UNTESTABLE_WITHOUT.
  'admin-provisioning': {},
  // #messaging requires no feature: XEP-0085/0184/0359/0461 are advertised only where implemented
  // (messaging.advertise-implemented), and chat itself has no disco feature.
  'human-messaging': {},
};

/** Features whose absence leaves a claimed profile undecidable rather than failed. */
const UNTESTABLE_WITHOUT: Readonly<Partial<Record<ProfileId, string>>> = {
  'admin-provisioning': FEATURE.admin,
};

export interface PreflightFinding {
  readonly profile: ProfileId;
  /** 'missing': the claim requires what the SUT does not advertise (the profile fails). */
  readonly kind: 'missing' | 'untestable';
  /** One line: what is missing, where, and what was found instead. */
  readonly message: string;
}

/** The features one disco#info answer lists, or why there are none. */
type Advertised = { readonly features: ReadonlySet<string> } | { readonly problem: string };

async function advertised(caller: Caller, jid: string, node?: string): Promise<Advertised> {
  try {
    const payload = await caller.iq(
      jid,
      'get',
      xml('query', node === undefined ? { xmlns: NS.discoInfo } : { xmlns: NS.discoInfo, node }),
    );
    if (payload === undefined) return { problem: 'an empty disco#info result' };
    return { features: new Set(parseDiscoInfo(payload).features) };
  } catch (error) {
    return {
      problem: `disco#info failed (${error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error)})`,
    };
  }
}

/**
 * Features that look like this protocol's but are not its namespaces (an earlier draft, a
 * fork): named in the finding, since they are usually the whole explanation.
 */
function lookalikes(features: ReadonlySet<string>): string[] {
  const ours = new Set<string>(Object.values(FEATURE));
  return [...features].filter((feature) => /agent|tool|task/i.test(feature) && !ours.has(feature)).sort();
}

function describeFound(found: Advertised): string {
  if ('problem' in found) return found.problem;
  const similar = lookalikes(found.features);
  if (similar.length > 0) return `found instead: ${similar.join(', ')}`;
  return found.features.size === 0
    ? 'it advertises no feature'
    : `it advertises ${String(found.features.size)} other feature(s)`;
}

function check(
  findings: PreflightFinding[],
  profile: ProfileId,
  where: string,
  required: readonly string[] | undefined,
  found: Advertised,
): void {
  if (required === undefined || required.length === 0) return;
  const missing = 'problem' in found ? required : required.filter((feature) => !found.features.has(feature));
  if (missing.length === 0) return;
  findings.push({
    profile,
    kind: 'missing',
    message: `${PROFILE_TITLES[profile]} is claimed, but ${where} does not advertise ${missing.join(', ')}: ${describeFound(found)}`,
  });
}

export interface PreflightOptions {
  readonly caller: Caller;
  readonly gatewayJid: string;
  readonly claimed: ReadonlySet<ProfileId>;
  /** What the gateway advertised at the start of the run (already asked). */
  readonly gatewayFeatures: ReadonlySet<string>;
  readonly world?: ReferenceWorld;
}

export async function preflight(options: PreflightOptions): Promise<PreflightFinding[]> {
  const findings: PreflightFinding[] = [];
  const claimed = [...options.claimed];
  const gateway: Advertised = { features: options.gatewayFeatures };
  for (const profile of claimed) {
    check(
      findings,
      profile,
      `the gateway ${options.gatewayJid}`,
      PROFILE_REQUIRED_FEATURES[profile].gateway,
      gateway,
    );
    const untestable = UNTESTABLE_WITHOUT[profile];
    if (untestable !== undefined && !options.gatewayFeatures.has(untestable)) {
      findings.push({
        profile,
        kind: 'untestable',
        message: `${PROFILE_TITLES[profile]} is claimed, but the gateway does not advertise ${untestable}; the spec allows local administration instead, which this suite cannot drive`,
      });
    }
  }
  const world = options.world;
  if (world === undefined) return findings;
  try {
    await checkWorldEndpoints(world, claimed, options.caller, findings);
  } catch (error) {
    // An operator checklist item the SUT file does not confirm (admin-iq): what the preflight
    // would look at is unknown, and the cases that need it say so themselves (cantTell).
    if (!(error instanceof MissingFixture)) throw error;
  }
  return findings;
}

async function checkWorldEndpoints(
  world: ReferenceWorld,
  claimed: readonly ProfileId[],
  caller: Caller,
  findings: PreflightFinding[],
): Promise<void> {
  const needsEndpoints = claimed.some((profile) => PROFILE_REQUIRED_FEATURES[profile].endpoint !== undefined);
  if (needsEndpoints) {
    for (const endpoint of world.listedFor('local')) {
      const found = await advertised(caller, endpoint.jid);
      for (const profile of claimed) {
        check(
          findings,
          profile,
          `endpoint ${endpoint.jid}`,
          PROFILE_REQUIRED_FEATURES[profile].endpoint,
          found,
        );
      }
    }
  }
  const target = world.conformanceEndpoint();
  const script = target?.active?.tools.find((tool) => tool.name === 'script');
  if (target !== undefined && script !== undefined) {
    const atEndpoint = await advertised(caller, target.jid);
    const atTool = await advertised(caller, target.jid, script.node);
    for (const profile of claimed) {
      const required = PROFILE_REQUIRED_FEATURES[profile];
      check(
        findings,
        profile,
        `the conformance tools' endpoint ${target.jid}`,
        required.taskEndpoint,
        atEndpoint,
      );
      check(findings, profile, `the tool node of ${target.jid}'s script tool`, required.taskTool, atTool);
    }
  }
}
