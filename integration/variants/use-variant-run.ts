/**
 * One `agentconf run` per describe block, made in beforeAll (a variant that no longer builds, a
 * patch that no longer applies or a run that crashes fails the file, never an `it.fails`), and
 * the variant's copy removed in afterAll. Prints one line per run: variant, verdicts, seconds.
 */
import { afterAll, beforeAll } from 'vitest';
import { buildGatewayVariant, type BuiltVariant, type GatewayVariant } from './gateway-variants.ts';
import { runAgentconf, type AgentconfRun, type RunOptions } from './run-agentconf.ts';

/**
 * Generous: a full run takes 30-60 s alone on two cores, and was seen at 251 s on a machine
 * loaded twentyfold; a hang still ends well inside the proofs' hook timeout (600 s).
 */
export const RUN_TIMEOUT_MS = 420_000;

export type VariantSubject = GatewayVariant | { readonly name: string; readonly sutFile: string };

/** Starts the run in beforeAll; the returned function gives it to the tests. */
export function useVariantRun(
  subject: VariantSubject,
  options: Omit<RunOptions, 'sut'> = {},
): () => AgentconfRun {
  let built: BuiltVariant | undefined;
  let run: AgentconfRun | undefined;
  beforeAll(async () => {
    let sut: string;
    if ('sutFile' in subject) {
      sut = subject.sutFile;
    } else {
      built = buildGatewayVariant(subject);
      sut = built.sutFile;
    }
    run = await runAgentconf({ ...options, sut });
    const verdicts = run.result.profiles
      .filter((entry) => entry.claimed)
      .map((entry) => `${entry.profile} ${entry.verdict}`)
      .join(', ');
    const flags = [
      ...(options.strict === true ? ['--strict'] : []),
      ...(options.grep ?? []).map((grep) => `--grep ${grep}`),
      ...(options.profiles ?? []).map((profile) => `--profile ${profile}`),
      ...(options.serverA === undefined ? [] : [`--server-a ${options.serverA}`]),
    ];
    const change = 'change' in subject ? ` [${subject.change}]` : '';
    console.info(
      `[verdict proof] ${subject.name}${change}${flags.length > 0 ? ` (${flags.join(' ')})` : ''}: ${verdicts}; seed ${String(run.result.seed)}, ${run.seconds.toFixed(1)} s`,
    );
  }, RUN_TIMEOUT_MS);
  afterAll(() => {
    built?.remove();
  });
  return () => {
    if (run === undefined) throw new Error(`the run of ${subject.name} did not happen`);
    return run;
  };
}
