/**
 * Ctrl-C during `agentconf run`: the first SIGINT stops the run after (or during) the current case
 * and lets it write a partial report marked interrupted; a second one ends the process at once
 * (the exit cleanup then kills the gateway and the servers). Held only while cases run: before
 * that there is nothing to report, and SIGINT stops everything at once as it always does.
 */
import { CallerDisconnected } from '../harness/driver/index.ts';
import { deferInterruptCleanup } from '../harness/federation/exit-cleanup.ts';
import type { RunInterrupt } from '../runner/run-conformance.ts';
import { EXIT } from './io.ts';

export interface InterruptListener extends RunInterrupt {
  dispose(): void;
}

/** After an interrupt: a caller closed under an abandoned case is expected; anything else still crashes. */
function onAbandoned(reason: unknown): void {
  if (reason instanceof CallerDisconnected) return;
  throw reason;
}

export function listenForInterrupt(onFirst: (reason: string) => void): InterruptListener {
  const release = deferInterruptCleanup();
  let reason: string | undefined;
  let resolveRequest: (why: string) => void = () => undefined;
  const requested = new Promise<string>((resolve) => {
    resolveRequest = resolve;
  });
  const onSignal = (signal: NodeJS.Signals): void => {
    if (reason !== undefined) {
      dispose();
      process.exit(EXIT.interrupted);
    }
    reason = `interrupted by ${signal}`;
    // The case left running is abandoned: what it still awaits ends as the session closes its
    // callers, possibly unawaited. Those rejections are the teardown's, not errors.
    process.on('unhandledRejection', onAbandoned);
    onFirst(reason);
    resolveRequest(reason);
  };
  const dispose = (): void => {
    process.off('SIGINT', onSignal);
    release();
  };
  process.on('SIGINT', onSignal);
  return {
    get reason() {
      return reason;
    },
    requested,
    dispose,
  };
}
