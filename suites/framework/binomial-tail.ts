/**
 * Exact upper tails of the binomial distribution, for tests whose false-positive probability is
 * computed rather than approximated (suites/framework/predictability.ts). No normal
 * approximation: at the per-test levels of a Bonferroni-corrected battery (around 1e-10) its
 * relative error exceeds the value itself. Summed term by term in log space; the trial counts
 * the suite uses (a few hundred) keep that cheap. A package would do the same (jstat's
 * binomial.cdf), but is not among the project's dependencies for one loop.
 */

const logFactorials: number[] = [0];

function logFactorial(n: number): number {
  for (let k = logFactorials.length; k <= n; k++)
    logFactorials.push((logFactorials[k - 1] ?? 0) + Math.log(k));
  return logFactorials[n] ?? 0;
}

/** P(X ≥ successes) for X ~ Binomial(trials, p). */
export function binomialUpperTail(trials: number, successes: number, p: number): number {
  if (successes <= 0) return 1;
  if (successes > trials) return 0;
  if (p <= 0) return 0;
  if (p >= 1) return 1;
  let tail = 0;
  for (let k = successes; k <= trials; k++) tail += binomialMass(trials, k, p);
  return Math.min(1, tail);
}

function binomialMass(trials: number, k: number, p: number): number {
  const logChoose = logFactorial(trials) - logFactorial(k) - logFactorial(trials - k);
  return Math.exp(logChoose + k * Math.log(p) + (trials - k) * Math.log1p(-p));
}

/**
 * The smallest count whose upper tail is at most `alpha`: a one-sided test at level alpha
 * rejects from there on. `trials + 1` when even all successes are not that rare.
 */
export function criticalCount(trials: number, p: number, alpha: number): number {
  if (p <= 0) return 1;
  if (p >= 1) return trials + 1;
  let count = trials + 1;
  let tail = 0;
  while (count > 0) {
    const wider = tail + binomialMass(trials, count - 1, p);
    if (wider > alpha) break;
    tail = wider;
    count--;
  }
  return count;
}
