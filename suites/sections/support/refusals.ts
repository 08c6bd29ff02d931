/**
 * Registrations that must be refused (#manifest, #registration-flow, #json-encoding): after a
 * valid manifest from the same registrant registered (the positive control), each vector is
 * submitted under a fresh version, must get one of its allowed conditions, and must leave
 * nothing registered — checked with registration-status when the SUT has an administrator
 * (registration-flow.validate-before-commit).
 */
import type { DefinedCondition } from '../../../protocol/stanza/index.ts';
import type { CaseContext } from '../../framework/context.ts';
import { expectThat } from '../../framework/expect.ts';
import {
  adminFor,
  describeVersions,
  expectRefused,
  freshVersion,
  hasAdmin,
  registeredVersions,
  registrantFor,
  registrationControl,
  withRestore,
  type Registrant,
} from './provisioning.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';

/** What interp-11 accepts for a manifest the schema or the application rules refuse. */
export const INVALID_MANIFEST: readonly DefinedCondition[] = ['bad-request', 'not-acceptable'];

export interface RefusalVector {
  /** What the vector breaks, for messages. */
  readonly label: string;
  /** The manifest text claiming `jid` and `version`. */
  readonly text: (jid: string, version: string) => string;
  /** The conditions allowed (default INVALID_MANIFEST). */
  readonly conditions?: (registrant: Registrant) => readonly DefinedCondition[];
}

/**
 * Registers a valid manifest as the case's registrant first (the positive control: without it
 * the case cannot tell), then submits every vector (concurrently: they are independent) and
 * checks each refusal, then that none of their versions got registered.
 */
export async function expectRefusals(
  context: CaseContext,
  requirement: RequirementId,
  purpose: string,
  vectors: readonly RefusalVector[],
  registrantOf: (context: CaseContext, purpose: string) => Promise<Registrant> = registrantFor,
): Promise<void> {
  await withRestore(context, async (restorer) => {
    const registrant = await registrantOf(context, purpose);
    await registrationControl(context, restorer, registrant);
    const attempts = vectors.map((vector) => ({ vector, version: freshVersion(context) }));
    const replies = await Promise.all(
      attempts.map(({ vector, version }) =>
        restorer.register(registrant.provisioning, registrant.jid, vector.text(registrant.jid, version)),
      ),
    );
    replies.forEach((exchange, index) => {
      const attempt = attempts[index];
      if (attempt === undefined) return;
      const conditions = attempt.vector.conditions?.(registrant) ?? INVALID_MANIFEST;
      expectRefused(exchange, requirement, conditions, `a manifest with ${attempt.vector.label}`, context);
    });
    if (!hasAdmin(context)) return;
    const versions = await registeredVersions(
      context,
      await adminFor(context),
      registrant.jid,
      'registration-flow.validate-before-commit',
    );
    const attempted = attempts.map(({ version }) => version);
    expectThat(
      describeVersions(versions),
      'registration-flow.validate-before-commit',
      `none of the refused versions (${attempted.join(', ')}) registered under ${registrant.jid}`,
      !versions.some((version) => attempted.includes(version.id)),
    );
  });
}
