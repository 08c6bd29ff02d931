/**
 * What stops `agentconf run` early: Ctrl-C (SIGINT) and the --timeout wall-time limit, through one
 * RunInterrupt the runner already obeys. Held from the first server start to the last report:
 *
 * - during start-up nothing can be judged and the start cannot be cut short (the gateway may be
 *   waited for), so Ctrl-C runs the caller's start-up handler (it writes the not-run statement),
 *   says so and ends the process, whose exit cleanups kill the servers and the gateway;
 * - while cases run, the first Ctrl-C or the limit stops the run after (or during) the current
 *   case and lets it write a partial report; the limit, fired during start-up, stops the run as
 *   soon as the start ends (the start is bounded by the SUT file's startupSeconds);
 * - while reports are written, Ctrl-C lets them finish, and the run still exits 130;
 * - a second Ctrl-C ends the process at once, at any point.
 */
import { CallerDisconnected } from '../harness/driver/index.ts';
import { deferInterruptCleanup } from '../harness/federation/exit-cleanup.ts';
import type { RunInterrupt } from '../runner/run-conformance.ts';
import { EXIT } from './io.ts';

export type StopKind = 'interrupt' | 'timeout';
export type RunPhase = 'start-up' | 'cases' | 'reports';

export interface RunStopper extends RunInterrupt {
  /** Why the run was asked to stop, once it was. */
  readonly kind: StopKind | undefined;
  /** The phase the stop request came in. */
  readonly stoppedDuring: RunPhase | undefined;
  /** A gateway and its servers are starting: Ctrl-C now runs `onInterrupt`, then ends the process. */
  startingUp(onInterrupt: () => Promise<void>): void;
  casesRunning(): void;
  writingReports(): void;
  dispose(): void;
}

export interface RunStopperOptions {
  /** The wall-time limit in milliseconds; 0 for none. */
  readonly timeoutMs: number;
  /** The limit as the reason names it ("15 min"). */
  readonly timeoutText: string;
  /** One line to stderr. */
  readonly say: (line: string) => void;
  /** Ends the process (tests pass their own). */
  readonly exit?: (code: number) => void;
  /** Where SIGINT comes from (tests pass their own emitter). */
  readonly signals?: {
    on(event: 'SIGINT', listener: (signal: NodeJS.Signals) => void): unknown;
    off(event: 'SIGINT', listener: (signal: NodeJS.Signals) => void): unknown;
  };
}

/** After a stop request: a caller closed under an abandoned case is expected; anything else still crashes. */
function onAbandoned(reason: unknown): void {
  if (reason instanceof CallerDisconnected) return;
  throw reason;
}

/** "15 min", "90 s", "2 h": the limit in the unit it was most likely given in. */
export function durationText(ms: number): string {
  if (ms % 3_600_000 === 0) return `${String(ms / 3_600_000)} h`;
  if (ms % 60_000 === 0) return `${String(ms / 60_000)} min`;
  return `${String(ms / 1_000)} s`;
}

/** The stopper of one run: which phase it is in, and what a signal or the limit does in each. */
class RunStopListener implements RunStopper {
  readonly requested: Promise<string>;
  #phase: RunPhase = 'start-up';
  #onStartupInterrupt: () => Promise<void> = () => Promise.resolve();
  #reason: string | undefined;
  #kind: StopKind | undefined;
  #stoppedDuring: RunPhase | undefined;
  #resolveRequest: (why: string) => void = () => undefined;
  readonly #options: RunStopperOptions;
  readonly #exit: (code: number) => void;
  readonly #signals: NonNullable<RunStopperOptions['signals']>;
  readonly #release: () => void;
  readonly #timer: NodeJS.Timeout | undefined;

  constructor(options: RunStopperOptions) {
    this.#options = options;
    this.#exit = options.exit ?? ((code: number) => process.exit(code));
    this.#signals = options.signals ?? process;
    this.#release = deferInterruptCleanup();
    this.requested = new Promise<string>((resolve) => {
      this.#resolveRequest = resolve;
    });
    this.#timer =
      options.timeoutMs > 0
        ? setTimeout(() => {
            if (this.#reason === undefined)
              this.#request(`stopped at the ${options.timeoutText} time limit`, 'timeout');
          }, options.timeoutMs)
        : undefined;
    // The limit alone must not keep a finished run's process alive.
    this.#timer?.unref();
    this.#signals.on('SIGINT', this.#onSignal);
  }

  get reason(): string | undefined {
    return this.#reason;
  }

  get kind(): StopKind | undefined {
    return this.#kind;
  }

  get stoppedDuring(): RunPhase | undefined {
    return this.#stoppedDuring;
  }

  startingUp(onInterrupt: () => Promise<void>): void {
    this.#phase = 'start-up';
    this.#onStartupInterrupt = onInterrupt;
  }

  casesRunning(): void {
    this.#phase = 'cases';
  }

  writingReports(): void {
    this.#phase = 'reports';
  }

  dispose(): void {
    clearTimeout(this.#timer);
    this.#signals.off('SIGINT', this.#onSignal);
    this.#release();
  }

  #request(why: string, by: StopKind): void {
    this.#reason = why;
    this.#kind = by;
    this.#stoppedDuring = this.#phase;
    // The case left running is abandoned: what it still awaits ends as the session closes its
    // callers, possibly unawaited. Those rejections are the teardown's, not errors.
    process.on('unhandledRejection', onAbandoned);
    this.#resolveRequest(why);
  }

  readonly #onSignal = (signal: NodeJS.Signals): void => {
    const { say } = this.#options;
    if (this.#kind === 'interrupt') {
      say(`agentconf run: ${signal} again: stopping at once`);
      this.dispose();
      this.#exit(EXIT.interrupted);
      return;
    }
    this.#request(`interrupted by ${signal}`, 'interrupt');
    if (this.#phase === 'start-up') {
      say(`agentconf run: interrupted by ${signal} during start-up: stopping the servers and the gateway`);
      void this.#onStartupInterrupt().finally(() => {
        this.dispose();
        this.#exit(EXIT.interrupted);
      });
      return;
    }
    const what = this.#phase === 'cases' ? 'stopping and writing the partial report' : 'finishing the report';
    say(`\nagentconf run: interrupted by ${signal}: ${what} (Ctrl-C again stops at once)`);
  };
}

export function listenForRunStop(options: RunStopperOptions): RunStopper {
  return new RunStopListener(options);
}
