// One process-wide list of things that must not outlive this Node process (server process groups,
// per-run directories). Whatever way the process ends — normal exit, uncaught error, SIGINT,
// SIGTERM, SIGHUP — the synchronous cleanups run; a test failing only means its own teardown runs.

export type SyncCleanup = () => void;

const cleanups = new Set<SyncCleanup>();
const TERMINATING_SIGNALS = ['SIGINT', 'SIGTERM', 'SIGHUP'] as const;
let installed = false;

function runAll(): void {
  // Newest first: a run directory is removed only after the processes using it are gone.
  for (const cleanup of [...cleanups].reverse()) {
    cleanups.delete(cleanup);
    try {
      cleanup();
    } catch {
      // Best effort while the process is going away: one failing cleanup must not stop the others.
    }
  }
}

/** How many holders asked to handle SIGINT themselves (deferInterruptCleanup). */
let interruptDeferrals = 0;

function onSignal(signal: NodeJS.Signals): void {
  // A holder stops in order and then exits, which runs the cleanups ('exit').
  if (signal === 'SIGINT' && interruptDeferrals > 0) return;
  runAll();
  // Our listener must not swallow the signal: once it is gone, re-raise it so that the default
  // action (or another part of the program that listens for it) decides how the process ends.
  for (const s of TERMINATING_SIGNALS) process.removeListener(s, onSignal);
  if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
}

function install(): void {
  if (installed) return;
  installed = true;
  // 'exit' also fires when the process dies of an uncaught exception or unhandled rejection.
  process.on('exit', runAll);
  for (const signal of TERMINATING_SIGNALS) process.on(signal, onSignal);
}

/** Registers a cleanup; the returned function unregisters it (call it once the resource is released). */
export function registerExitCleanup(cleanup: SyncCleanup): () => void {
  install();
  cleanups.add(cleanup);
  return () => cleanups.delete(cleanup);
}

/**
 * While held, SIGINT runs no cleanup at once: the holder (agentconf run, writing a partial report)
 * handles it, stops what it started, and ends the process, when the cleanups run as on any exit.
 * The returned function releases the hold; SIGTERM and SIGHUP are never deferred.
 */
export function deferInterruptCleanup(): () => void {
  install();
  interruptDeferrals += 1;
  let released = false;
  return () => {
    if (released) return;
    released = true;
    interruptDeferrals -= 1;
  };
}
