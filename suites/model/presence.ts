/**
 * Presence of a virtual endpoint (#identity-presence): it SHOULD answer subscription requests
 * and probes as XMPP IM (RFC 6121) prescribes, so every answer here is graded at that SHOULD
 * (identity-presence.presence-handling): outside the set is a warning, not a failure.
 *
 * - Subscribe (RFC 6121 §3.1.3–3.1.4): the contact decides; the gateway MAY approve with
 *   `subscribed` and then send available presence, or deny with `unsubscribed`. Leaving it
 *   unanswered is what the SHOULD is about.
 * - Probe (RFC 6121 §4.3.2): presence only for a subscribed requester, reflecting runtime
 *   availability (#identity-presence: presence, not disco, tells it); others get `unsubscribed`
 *   or nothing, never the endpoint's presence.
 *
 * Model position (not in spec-positions.md): presence is not among the surfaces #rules puts under
 * the visibility decision, so for a requester that may not see the endpoint the model asks only
 * that the answer be the one a nonexistent endpoint gets (privacy.minimal-disclosure, a SHOULD).
 */
import { maySee } from './access.ts';
import { hostedEndpoint } from './directory.ts';
import { expectation, pass, type Expectation } from './expectation.ts';
import type { ModelWorld, Principal } from './world.ts';

const PRESENCE_REQUIREMENTS = ['identity-presence.presence-handling'];

function hiddenFrom(world: ModelWorld, principal: Principal, jid: string): boolean {
  const endpoint = hostedEndpoint(world, jid);
  return endpoint?.active === undefined || !maySee(world, principal, endpoint);
}

/** A <presence type='subscribe'/> from the principal to the endpoint. */
export function presenceSubscribe(world: ModelWorld, principal: Principal, jid: string): Expectation {
  const operation = `presence subscription of ${principal.bare} to ${jid}`;
  if (hiddenFrom(world, principal, jid)) {
    return expectation({
      operation,
      requirements: [...PRESENCE_REQUIREMENTS, 'privacy.minimal-disclosure'],
      alternatives: [pass({ kind: 'presence', types: ['unsubscribed'] }), pass({ kind: 'silence' })],
      sameAsNonexistent: true,
      unauthorized: true,
    });
  }
  const endpoint = hostedEndpoint(world, jid);
  const approved = endpoint?.available === true ? ['subscribed', 'available'] : ['subscribed'];
  return expectation({
    operation,
    requirements: [...PRESENCE_REQUIREMENTS, 'identity-presence.auto-subscribe'],
    alternatives: [
      pass({ kind: 'presence', types: approved }, 'approved (identity-presence.auto-subscribe)'),
      pass({ kind: 'presence', types: ['unsubscribed'] }, 'the contact may deny (RFC 6121 §3.1.4)'),
    ],
  });
}

/** A <presence type='probe'/>; `subscribed`: whether the endpoint approved this principal before. */
export function presenceProbe(
  world: ModelWorld,
  principal: Principal,
  jid: string,
  subscribed: boolean,
): Expectation {
  const operation = `presence probe of ${jid} by ${principal.bare}`;
  const refusal = [pass({ kind: 'presence', types: ['unsubscribed'] }), pass({ kind: 'silence' })];
  if (hiddenFrom(world, principal, jid)) {
    return expectation({
      operation,
      requirements: [...PRESENCE_REQUIREMENTS, 'privacy.minimal-disclosure'],
      alternatives: refusal,
      sameAsNonexistent: true,
      unauthorized: true,
    });
  }
  if (!subscribed)
    return expectation({ operation, requirements: PRESENCE_REQUIREMENTS, alternatives: refusal });
  const endpoint = hostedEndpoint(world, jid);
  return expectation({
    operation,
    requirements: [...PRESENCE_REQUIREMENTS, 'identity-presence.availability-in-presence'],
    alternatives: [
      pass({ kind: 'presence', types: [endpoint?.available === true ? 'available' : 'unavailable'] }),
    ],
  });
}
