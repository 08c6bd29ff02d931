/** Gating a case on the task features the tool it invokes advertises (#conformance, interp-43). */
import { PROFILE_TITLES } from '../../../protocol/profiles.ts';
import { FEATURE } from '../../../protocol/namespaces.ts';
import { expectDiscoInfo } from '../../framework/expect.ts';
import { PROFILE_REQUIRED_FEATURES } from '../../framework/preflight.ts';
import { CannotTell, MissingFixture, NotApplicable } from '../../framework/verdicts.ts';
import { discoInfo } from './discovery.ts';
import type { TaskSession } from './task-session.ts';

const TOOL_FEATURES = {
  progress: FEATURE.taskProgress,
  cancel: FEATURE.taskCancel,
  input: FEATURE.taskInput,
} as const;

/**
 * Task features are advertised at executable endpoints and tool nodes, not at the gateway's own
 * JID (#conformance): a case that needs one asks the tool node it invokes. Advertising makes the
 * case mandatory (interp-43). A feature not advertised makes it inapplicable only when no claimed
 * profile requires it; when one does (Interactive Tasks requires progress, cancel and input,
 * interp-43), the preflight has reported the missing feature for the `script` tool and failed
 * that profile, and the case is blocked by that finding (cantTell), never inapplicable.
 */
export async function requireToolFeatures(
  { context, caller, target }: TaskSession,
  tool: string,
  features: readonly (keyof typeof TOOL_FEATURES)[],
): Promise<void> {
  const node = target.manifest.tools.find((candidate) => candidate.name === tool)?.node;
  if (node === undefined) {
    throw new MissingFixture(
      `${target.jid} ${target.version} has no tool ${tool}: host the conformance tools unchanged (docs/conformance-tools.md)`,
    );
  }
  const exchange = await discoInfo(caller, target.jid, node);
  const info = expectDiscoInfo(exchange, 'tool-info.disco-info');
  const missing = features
    .map((feature) => TOOL_FEATURES[feature])
    .filter((feature) => !info.features.includes(feature));
  if (missing.length === 0) return;
  const requiredBy = [...context.sut.profiles].filter((profile) => {
    const required = PROFILE_REQUIRED_FEATURES[profile];
    return missing.some(
      (feature) =>
        required.taskTool?.includes(feature) === true || required.taskEndpoint?.includes(feature) === true,
    );
  });
  const what = `${tool} at ${target.jid} does not advertise ${missing.join(', ')}`;
  if (requiredBy.length > 0) {
    const claims = requiredBy.map((profile) => PROFILE_TITLES[profile]).join(', ');
    throw new CannotTell(
      tool === 'script'
        ? `blocked by the preflight: ${claims} is claimed and requires what ${what}`
        : `${claims} is claimed and requires what ${what}`,
    );
  }
  throw new NotApplicable(`${what}, and no claimed profile requires it`);
}
