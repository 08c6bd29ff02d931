/**
 * The seeds of a model case's experiment: the shape of the generated world and the steps
 * fast-check draws over it. They come from the case seed, not the attempt's, so the re-run of a
 * failed attempt (run-case.ts) repeats the same experiment: the same world shape and the same
 * steps, on endpoint names, versions and hashes drawn from the attempt's own seed, which the
 * gateway has never seen. A real bug then shows again and the case fails; an answer that came from
 * the suite's noise (a slow round trip, a stray stanza) does not, and the runner reports the case
 * flaky as for any other. A re-run on a freshly drawn world shape was no repetition: it sampled
 * other operations, and a bug the first attempt had hit by chance passed it (run seed 2295397938,
 * schema-stale-hash-served).
 */
import type { CaseContext } from '../../../framework/context.ts';
import { SeededRandom } from '../../../framework/seeded-random.ts';

export class ModelExperiment {
  readonly attempt: number;
  readonly caseSeed: number;
  readonly attemptSeed: number;
  readonly #random: SeededRandom;

  constructor(context: Pick<CaseContext, 'random' | 'attempt'>) {
    this.attempt = context.attempt?.number ?? 1;
    this.caseSeed = context.attempt?.caseSeed ?? context.random.seed;
    this.attemptSeed = context.random.seed;
    this.#random = new SeededRandom(this.caseSeed);
  }

  /** The next seed of the experiment: the same sequence on every attempt of the case. */
  nextSeed(): number {
    return this.#random.int(0, 0x7fff_ffff);
  }

  /** For a failure message: which attempt, and the seeds that replay it. */
  describe(): string {
    return `attempt ${String(this.attempt)}, attempt seed ${String(this.attemptSeed)} (names), case seed ${String(this.caseSeed)} (world shape and steps)`;
  }
}
