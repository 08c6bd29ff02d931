/**
 * Invocation admission (#invocation, #errors, #rules). The target first decides whether the
 * sender's bare JID may invoke this exact tool of this endpoint, from grants alone: visibility
 * neither grants nor is needed (invocation.invoke-without-visibility), and a nonexistent or
 * unauthorized target or tool gets one safe item-not-found (invocation.unauthorized-item-not-found)
 * before anything about version, hash, tool or arguments leaks (invocation.authorize-first).
 *
 * An authorized request is then checked for faults. One fault: its answers (interp-27). Several:
 * any one of their errors passes (the spec orders none of the checks after authorization), and
 * an admission passes only if every fault admits one (a clamped deadline with a stale hash is
 * still a conflict).
 */
import { HASH_ALGO_SHA256 } from '../../protocol/namespaces.ts';
import { mayInvoke } from './access.ts';
import { hostedEndpoint } from './directory.ts';
import {
  error,
  expectation,
  notFound,
  pass,
  warn,
  type Alternative,
  type Expectation,
} from './expectation.ts';
import { taskCapacityOf } from './limits.ts';
import { versionOf, type ModelWorld, type Principal } from './world.ts';

/** How far the suite's and the gateway's clocks may disagree for deadline decisions (interp-30). */
export const CLOCK_SKEW_SECONDS = 60;

export interface InvocationRequest {
  readonly jid: string;
  readonly tool: string;
  readonly version: string;
  readonly manifestHash: string;
  /** The hash's algo attribute; sha-256 unless given. */
  readonly hashAlgo?: string;
  /** Whether the arguments validate against the pinned input schema (the target's verdict is authoritative). */
  readonly argumentsValid: boolean;
  /** The deadline, in seconds after the gateway's now; absent: no deadline. */
  readonly deadlineInSeconds?: number;
  /**
   * How far the deadline's distance from the gateway's now at admission may differ from
   * `deadlineInSeconds` (a measured clock narrows it); CLOCK_SKEW_SECONDS unless given. Only the
   * comparison with the tool maximum uses it: interp-30 fixes the expiry window itself.
   */
  readonly deadlineUncertaintySeconds?: number;
}

/** What the caller holds when it invokes. */
export interface CallerState {
  /** Tasks of this caller (bare JID) not yet terminal. */
  readonly nonTerminalTasks: number;
}

interface Fault {
  readonly interpretation?: string;
  /** Error answers this fault may produce. */
  readonly errors: readonly Alternative[];
  /** Admissions this fault still allows (a clamped deadline, a deadline within clock skew). */
  readonly admissions: readonly Alternative[];
  /** The version or tool does not exist: refused exactly like an unauthorized target. */
  readonly nonexistent?: boolean;
}

const ACCEPTED = { kind: 'accepted' } as const;

function deadlineFault(request: InvocationRequest, maximumSeconds: number | undefined): Fault | undefined {
  const deadline = request.deadlineInSeconds;
  if (deadline === undefined) return undefined;
  if (deadline <= -CLOCK_SKEW_SECONDS) {
    return {
      interpretation: 'interp-30',
      errors: [pass(error('not-acceptable'))],
      admissions: [
        warn(
          { kind: 'accepted-then-failed', code: 'deadline-expired' },
          'admitted an expired deadline, then failed it (interp-30)',
        ),
      ],
    };
  }
  if (deadline <= CLOCK_SKEW_SECONDS) {
    return {
      interpretation: 'interp-30',
      errors: [pass(error('not-acceptable'))],
      admissions: [pass(ACCEPTED), pass({ kind: 'accepted-then-failed', code: 'deadline-expired' })],
    };
  }
  // Possibly above the maximum on the gateway's clock: clamping and refusal both pass (interp-32).
  const uncertainty = request.deadlineUncertaintySeconds ?? CLOCK_SKEW_SECONDS;
  if (maximumSeconds !== undefined && deadline + uncertainty > maximumSeconds) {
    return {
      interpretation: 'interp-32',
      errors: [pass(error('not-acceptable'))],
      admissions: [pass(ACCEPTED, 'the deadline clamped to the tool maximum (interp-32)')],
    };
  }
  return undefined;
}

/** Faults of an authorized request, in no particular order. */
function faultsOf(
  world: ModelWorld,
  principal: Principal,
  request: InvocationRequest,
  caller: CallerState,
): Fault[] {
  const endpoint = hostedEndpoint(world, request.jid);
  const faults: Fault[] = [];
  if (endpoint?.active === undefined) {
    // A deactivated endpoint: the deployment documents which of these it gives (interp-23).
    faults.push({
      interpretation: 'interp-23',
      errors: [pass(error('item-not-found')), pass(error('conflict')), pass(error('service-unavailable'))],
      admissions: [pass(ACCEPTED)],
    });
  }
  const manifest = endpoint === undefined ? undefined : versionOf(endpoint, request.version);
  const tool = manifest?.tools.find((candidate) => candidate.name === request.tool);
  if (tool === undefined)
    faults.push({ errors: [pass(error('item-not-found'))], admissions: [], nonexistent: true });
  if ((request.hashAlgo ?? HASH_ALGO_SHA256) !== HASH_ALGO_SHA256) {
    faults.push({
      interpretation: 'interp-27',
      errors: [pass(error('conflict')), pass(error('bad-request')), pass(error('not-acceptable'))],
      admissions: [],
    });
  } else if (manifest !== undefined && request.manifestHash !== manifest.hash) {
    faults.push({ errors: [pass(error('conflict'))], admissions: [] });
  }
  if (tool !== undefined && !request.argumentsValid)
    faults.push({ errors: [pass(error('not-acceptable'))], admissions: [] });
  const deadline = deadlineFault(request, tool?.maximumTimeoutSeconds);
  if (deadline !== undefined) faults.push(deadline);
  const capacity = taskCapacityOf(world, principal);
  if (capacity !== undefined && caller.nonTerminalTasks >= capacity) {
    faults.push({
      interpretation: 'interp-42',
      errors: [pass(error('resource-constraint'))],
      admissions: [],
    });
  }
  return faults;
}

function distinct(alternatives: readonly Alternative[]): Alternative[] {
  const seen = new Map<string, Alternative>();
  for (const alternative of alternatives) {
    const key = JSON.stringify(alternative.answer);
    const known = seen.get(key);
    if (known === undefined || (known.verdict === 'warn' && alternative.verdict === 'pass'))
      seen.set(key, alternative);
  }
  return [...seen.values()];
}

/**
 * The admissions every fault allows. An admission that later fails is compatible with a fault
 * that allows plain admission (a deactivated endpoint's task may still fail its deadline), not
 * the other way round; a warned option anywhere warns the result.
 */
function commonAdmissions(faults: readonly Fault[]): Alternative[] {
  const kinds = ['accepted', 'accepted-then-failed'] as const;
  return kinds.flatMap((kind) => {
    const options = faults.map((fault) =>
      fault.admissions.find(
        (alternative) =>
          alternative.answer.kind === kind ||
          (kind === 'accepted-then-failed' && alternative.answer.kind === 'accepted'),
      ),
    );
    if (options.some((option) => option === undefined)) return [];
    if (!options.some((option) => option?.answer.kind === kind)) return [];
    const answer = kind === 'accepted' ? ACCEPTED : ({ kind, code: 'deadline-expired' } as const);
    const warned = options.find((option) => option?.verdict === 'warn');
    return [warned?.note === undefined ? pass(answer) : warn(answer, warned.note)];
  });
}

/** The answers to an <invoke/> from `principal`. */
export function invocation(
  world: ModelWorld,
  principal: Principal,
  request: InvocationRequest,
  caller: CallerState = { nonTerminalTasks: 0 },
): Expectation {
  const operation = `invoke ${request.tool} of ${request.jid} version ${request.version} by ${principal.bare}`;
  const endpoint = hostedEndpoint(world, request.jid);
  if (endpoint === undefined || !mayInvoke(world, principal, endpoint, request.tool)) {
    return notFound(operation, [
      'invocation.unauthorized-item-not-found',
      'invocation.authorize-first',
      'security.federation-deny-default',
    ]);
  }
  const faults = faultsOf(world, principal, request, caller);
  const admissions = faults.length === 0 ? [pass(ACCEPTED)] : commonAdmissions(faults);
  return expectation({
    operation,
    requirements: [
      'invocation.invoke-without-visibility',
      'invocation.authorize-first',
      'rules.target-validates-arguments',
      'security.authorize-and-validate',
    ],
    interpretations: [
      ...new Set(
        faults.flatMap((fault) => (fault.interpretation === undefined ? [] : [fault.interpretation])),
      ),
    ],
    alternatives: distinct([...faults.flatMap((fault) => fault.errors), ...admissions]),
    // A nonexistent tool or version gets the unauthorized caller's refusal (invocation.unauthorized-item-not-found).
    sameAsNonexistent: faults.length === 1 && faults[0]?.nonexistent === true,
  });
}
