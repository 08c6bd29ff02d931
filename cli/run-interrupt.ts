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

export function listenForRunStop(options: RunStopperOptions): RunStopper {
  const exit = options.exit ?? ((code: number) => process.exit(code));
  const signals = options.signals ?? process;
  const release = deferInterruptCleanup();
  let phase: RunPhase = 'start-up';
  let onStartupInterrupt: () => Promise<void> = () => Promise.resolve();
  let reason: string | undefined;
  let kind: StopKind | undefined;
  let stoppedDuring: RunPhase | undefined;
  let resolveRequest: (why: string) => void = () => undefined;
  const requested = new Promise<string>((resolve) => {
    resolveRequest = resolve;
  });
  const request = (why: string, by: StopKind): void => {
    reason = why;
    kind = by;
    stoppedDuring = phase;
    // The case left running is abandoned: what it still awaits ends as the session closes its
    // callers, possibly unawaited. Those rejections are the teardown's, not errors.
    process.on('unhandledRejection', onAbandoned);
    resolveRequest(why);
  };
  const onSignal = (signal: NodeJS.Signals): void => {
    if (kind === 'interrupt') {
      options.say(`agentconf run: ${signal} again: stopping at once`);
      dispose();
      exit(EXIT.interrupted);
      return;
    }
    request(`interrupted by ${signal}`, 'interrupt');
    if (phase === 'start-up') {
      options.say(
        `agentconf run: interrupted by ${signal} during start-up: stopping the servers and the gateway`,
      );
      void onStartupInterrupt().finally(() => {
        dispose();
        exit(EXIT.interrupted);
      });
      return;
    }
    const what = phase === 'cases' ? 'stopping and writing the partial report' : 'finishing the report';
    options.say(`\nagentconf run: interrupted by ${signal}: ${what} (Ctrl-C again stops at once)`);
  };
  const timer =
    options.timeoutMs > 0
      ? setTimeout(() => {
          if (reason === undefined) request(`stopped at the ${options.timeoutText} time limit`, 'timeout');
        }, options.timeoutMs)
      : undefined;
  // The limit alone must not keep a finished run's process alive.
  timer?.unref();
  signals.on('SIGINT', onSignal);
  const dispose = (): void => {
    clearTimeout(timer);
    signals.off('SIGINT', onSignal);
    release();
  };
  return {
    get reason() {
      return reason;
    },
    get kind() {
      return kind;
    },
    get stoppedDuring() {
      return stoppedDuring;
    },
    requested,
    startingUp(onInterrupt) {
      phase = 'start-up';
      onStartupInterrupt = onInterrupt;
    },
    casesRunning() {
      phase = 'cases';
    },
    writingReports() {
      phase = 'reports';
    },
    dispose,
  };
}
