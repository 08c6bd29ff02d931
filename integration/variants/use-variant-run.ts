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

/**
 * Runs of one file made side by side, at most `width` at once, all started when the first of
 * them is asked for (collection has registered every member by then). For full runs that are
 * mostly waiting; each run keeps its own federation and variant copy.
 */
export class SideBySideRuns {
  readonly #members: (() => Promise<void>)[] = [];
  #started = false;

  constructor(readonly width: number) {}

  /** Registers a run; the promise settles when it is done. */
  add(start: () => Promise<AgentconfRun>): Promise<AgentconfRun> {
    let resolve!: (run: AgentconfRun) => void;
    let reject!: (error: unknown) => void;
    const done = new Promise<AgentconfRun>((ok, fail) => {
      resolve = ok;
      reject = fail;
    });
    // Awaited by its own beforeAll, which reports a failure there.
    done.catch(() => undefined);
    this.#members.push(() => start().then(resolve, reject));
    return done;
  }

  /** Starts every registered run, `width` lanes taking the next waiting one. */
  start(): void {
    if (this.#started) return;
    this.#started = true;
    const waiting = [...this.#members];
    const lane = async (): Promise<void> => {
      for (let next = waiting.shift(); next !== undefined; next = waiting.shift()) await next();
    };
    for (let index = 0; index < this.width; index += 1) void lane();
  }
}

/** Starts the run in beforeAll (or with `together`, side by side); the returned function gives it to the tests. */
export function useVariantRun(
  subject: VariantSubject,
  options: Omit<RunOptions, 'sut'> = {},
  together?: SideBySideRuns,
): () => AgentconfRun {
  let built: BuiltVariant | undefined;
  let run: AgentconfRun | undefined;
  const runIt = async (): Promise<AgentconfRun> => {
    let sut: string;
    if ('sutFile' in subject) {
      sut = subject.sutFile;
    } else {
      built = buildGatewayVariant(subject);
      sut = built.sutFile;
    }
    return await runAgentconf({ ...options, sut });
  };
  const started = together?.add(runIt);
  beforeAll(async () => {
    together?.start();
    run = await (started ?? runIt());
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
