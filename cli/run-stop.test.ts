// The run's stop requests (cli/run-interrupt.ts): the --timeout limit and Ctrl-C in each phase,
// with a signal emitter and an exit of the test's own, so nothing here ends the test process.
import { EventEmitter } from 'node:events';

import { describe, expect, it } from 'vitest';

import { durationText, listenForRunStop } from './run-interrupt.ts';
import { parseDuration } from './options.ts';
import { defaultTimeoutMs, RUN_TIMEOUT_MS } from './run-spec.ts';

function stopper(timeoutMs = 0) {
  const signals = new EventEmitter();
  const said: string[] = [];
  const exits: number[] = [];
  const stop = listenForRunStop({
    timeoutMs,
    timeoutText: durationText(timeoutMs),
    say: (line) => said.push(line),
    exit: (code) => exits.push(code),
    signals,
  });
  return { stop, said, exits, interrupt: () => signals.emit('SIGINT', 'SIGINT') };
}

describe('the --timeout limit', () => {
  it('asks the run to stop like an interrupt, naming the limit and the phase it came in', async () => {
    const { stop, said, exits } = stopper(5);
    stop.casesRunning();
    expect(await stop.requested).toBe('stopped at the 0.005 s time limit');
    expect(stop).toMatchObject({
      kind: 'timeout',
      stoppedDuring: 'cases',
      reason: 'stopped at the 0.005 s time limit',
    });
    // The command prints the one line (with where it stopped) once the report is written.
    expect(said).toEqual([]);
    expect(exits).toEqual([]);
    stop.dispose();
  });

  it('reads 90s, 20m, 2h and plain seconds; 0 means none; the default scales with --deep and --repeat', () => {
    expect(['90s', '20m', '2h', '1.5h', '45', '0'].map(parseDuration)).toEqual([
      90_000, 1_200_000, 7_200_000, 5_400_000, 45_000, 0,
    ]);
    expect(['', 'm', '5d', '-1m', '1.h', ' 1s'].map(parseDuration)).toEqual(Array(6).fill(undefined));
    expect([15 * 60_000, 90_000, 7_200_000].map(durationText)).toEqual(['15 min', '90 s', '2 h']);
    expect(defaultTimeoutMs(false, 1)).toBe(RUN_TIMEOUT_MS);
    expect(defaultTimeoutMs(true, 3)).toBe(RUN_TIMEOUT_MS * 8 * 3);
  });
});

describe('Ctrl-C during agentconf run', () => {
  it('during start-up: writes what it can, says so, and ends the process with 130', async () => {
    const { stop, said, exits, interrupt } = stopper();
    let wrote = false;
    const ended = new Promise<void>((resolve) => {
      stop.startingUp(() => {
        wrote = true;
        resolve();
        return Promise.resolve();
      });
    });
    interrupt();
    await ended;
    await stop.requested;
    await Promise.resolve();
    expect(wrote).toBe(true);
    expect(said).toEqual([
      'agentconf run: interrupted by SIGINT during start-up: stopping the servers and the gateway',
    ]);
    await expect.poll(() => exits).toEqual([130]);
    expect(stop).toMatchObject({ kind: 'interrupt', stoppedDuring: 'start-up' });
  });

  it('while cases run: asks the run to stop; a second Ctrl-C ends the process at once', async () => {
    const { stop, said, exits, interrupt } = stopper(60_000);
    stop.casesRunning();
    interrupt();
    expect(await stop.requested).toBe('interrupted by SIGINT');
    expect(said).toEqual([
      '\nagentconf run: interrupted by SIGINT: stopping and writing the partial report (Ctrl-C again stops at once)',
    ]);
    expect(exits).toEqual([]);
    interrupt();
    expect(exits).toEqual([130]);
  });

  it('while reports are written: lets them finish, and the run is still interrupted', async () => {
    const { stop, said, exits, interrupt } = stopper();
    stop.writingReports();
    interrupt();
    expect(await stop.requested).toBe('interrupted by SIGINT');
    expect(said[0]).toContain('finishing the report (Ctrl-C again stops at once)');
    expect(exits).toEqual([]);
    expect(stop.kind).toBe('interrupt');
    stop.dispose();
  });
});
