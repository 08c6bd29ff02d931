/**
 * What an attempt decided, gathered without threading a parameter through every verifier: the
 * runner opens one scope per attempt (run-case.ts) and every verifier that held records its
 * requirement into the scope of the code that called it. AsyncLocalStorage keeps scopes apart
 * when attempts run side by side. A pass rests on these checks: an attempt that decided none
 * against a real answer proves nothing and cannot pass (style.md: a passed case always decided
 * at least one check).
 *
 * The scope also catches what a case left behind: a promise it started and never awaited that
 * rejects during the attempt or its disposal (Node emits unhandledRejection in the async
 * context of the rejected promise, so the rejection finds the scope of the case that made it).
 */
import { AsyncLocalStorage } from 'node:async_hooks';
import type { RequirementId } from '../registry/requirement-ids.ts';

/** What a send from the code of a given-up attempt throws. */
export class AttemptAbandoned extends Error {
  override readonly name = 'AttemptAbandoned';
}

export class AttemptEvidence {
  #checks = 0;
  readonly #requirements = new Set<RequirementId>();
  readonly #leftBehind: unknown[] = [];
  #open = true;
  /** Why the attempt was given up (its time limit): from then on its code may send nothing. */
  #abandoned: string | undefined;
  /** Where a rejection goes that arrives once the attempt's report is written. */
  readonly #late: ((reason: unknown) => void) | undefined;

  constructor(late?: (reason: unknown) => void) {
    this.#late = late;
  }

  /** Checks that held, one per verifier call. */
  get checks(): number {
    return this.#checks;
  }

  /** The requirements those checks decided, in first-decided order. */
  get requirements(): readonly RequirementId[] {
    return [...this.#requirements];
  }

  /** Rejections the case left unawaited, in the order they surfaced. */
  get leftBehind(): readonly unknown[] {
    return this.#leftBehind;
  }

  held(requirement: RequirementId): void {
    if (!this.#open) return;
    this.#checks += 1;
    this.#requirements.add(requirement);
  }

  orphaned(reason: unknown): void {
    // What the refused sends of a given-up attempt reject with is the give-up itself, not a finding.
    if (reason instanceof AttemptAbandoned) return;
    if (this.#open) this.#leftBehind.push(reason);
    else this.#late?.(reason);
  }

  /**
   * The runner stopped waiting for the attempt: the case's code may still be running, and every
   * stanza it tries to send from now on is refused (refuseSendsOfAbandonedAttempt), so it cannot
   * go on loading the gateway while later cases run or reach into their transcripts.
   */
  abandon(why: string): void {
    this.#abandoned ??= why;
  }

  get abandoned(): string | undefined {
    return this.#abandoned;
  }

  /** The attempt's report is being written: later checks no longer count, later rejections go to `late`. */
  close(): void {
    this.#open = false;
  }
}

const scopes = new AsyncLocalStorage<AttemptEvidence>();

/**
 * A driver's send gate (harness/driver, DriverOptions.sendGate): throws when the code sending
 * belongs to an attempt the runner gave up on. A no-op outside an attempt.
 */
export function refuseSendsOfAbandonedAttempt(): void {
  const why = scopes.getStore()?.abandoned;
  if (why !== undefined) throw new AttemptAbandoned(`not sent: the attempt was given up (${why})`);
}

/**
 * Records that a check of `requirement` held against what the SUT sent. A no-op outside an
 * attempt (the preflight, unit tests of a verifier).
 */
export function checkHeld(requirement: RequirementId): void {
  scopes.getStore()?.held(requirement);
}

function onUnhandledRejection(reason: unknown): void {
  const scope = scopes.getStore();
  if (scope !== undefined) {
    scope.orphaned(reason);
    return;
  }
  // Not a case's: keep Node's default (the process dies loudly) unless someone else listens.
  if (process.listenerCount('unhandledRejection') === 1) throw reason;
}

let listening = false;

/** Runs `work` inside `evidence`'s scope; the first call starts routing unhandled rejections to scopes. */
export function withEvidence<T>(evidence: AttemptEvidence, work: () => Promise<T>): Promise<T> {
  if (!listening) {
    listening = true;
    process.on('unhandledRejection', onUnhandledRejection);
  }
  return scopes.run(evidence, work);
}
