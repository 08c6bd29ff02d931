/**
 * The per-test engine kit of the task unit tests, with its vitest hooks: a fresh kit before each
 * test, closed after it, and the shared validator closed after the file (or describe block).
 *
 * Kept apart from engine-kit.ts because that module also runs outside vitest (the crash child
 * process and the admission bench), which have no use for test hooks.
 */
import { afterAll, afterEach, beforeEach } from 'vitest';
import type { TaskEngineOptions } from '../task-engine.ts';
import { closeKitValidator, engineKit, type EngineKit } from './engine-kit.ts';

/**
 * The kit of the running test. Its fields read the current kit at each access, so one module-level
 * handle serves every test; closing is the hooks' job, not the test's.
 */
export interface CurrentEngineKit extends Omit<EngineKit, 'close'> {
  /** Closes this test's kit and opens a fresh one with other engine options for the rest of it. */
  reopen(overrides: Partial<TaskEngineOptions>): void;
}

export function useEngineKit(overrides: Partial<TaskEngineOptions> = {}): CurrentEngineKit {
  let current: EngineKit | undefined;
  const kit = (): EngineKit => {
    if (current === undefined) throw new Error('the engine kit exists only while a test runs');
    return current;
  };
  beforeEach(() => {
    current = engineKit(overrides);
  });
  afterEach(() => {
    const closing = current;
    current = undefined;
    closing?.close();
  });
  afterAll(async () => {
    await closeKitValidator();
  });
  return {
    get dir() {
      return kit().dir;
    },
    get store() {
      return kit().store;
    },
    get clock() {
      return kit().clock;
    },
    get runtime() {
      return kit().runtime;
    },
    get delivered() {
      return kit().delivered;
    },
    get engine() {
      return kit().engine;
    },
    restart(options) {
      return kit().restart(options);
    },
    reopen(reopenOverrides) {
      // Cleared before opening, so a failing open leaves nothing for afterEach to close twice.
      const closing = kit();
      current = undefined;
      closing.close();
      current = engineKit(reopenOverrides);
    },
  };
}
