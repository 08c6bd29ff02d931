/** One conformance runtime wired to a fake engine, a fake clock and an in-memory ledger. */
import type { JsonValue } from '../../../../protocol/json/json-value.ts';
import { ConformanceRuntime } from '../conformance-runtime.ts';
import { FakeClock } from '../../../../protocol/conformance-script/test-support/fake-clock.ts';
import {
  FakeEngine,
  type FakeActionsOptions,
} from '../../../../protocol/conformance-script/test-support/fake-actions.ts';
import { MemoryLedger } from '../../../../protocol/conformance-script/test-support/memory-ledger.ts';

export interface RuntimeHarness {
  readonly engine: FakeEngine;
  readonly clock: FakeClock;
  readonly ledger: MemoryLedger;
  /** Starts one execution; the promise settles when `execute` returns. */
  readonly run: (args: JsonValue, tool?: string, deadline?: string) => Promise<void>;
}

export interface HarnessOptions extends FakeActionsOptions {
  /** Share one ledger between executions, as one gateway's store does. */
  readonly ledger?: MemoryLedger;
}

export function runtimeHarness(options: HarnessOptions = {}): RuntimeHarness {
  const engine = new FakeEngine(options);
  const clock = new FakeClock();
  const ledger = options.ledger ?? new MemoryLedger();
  const runtime = new ConformanceRuntime({ ledger, clock });
  return {
    engine,
    clock,
    ledger,
    run: (args, tool = 'script', deadline) =>
      runtime.execute(
        {
          taskHandle: 'handle-1',
          tool,
          apiVersion: '1.0.0',
          arguments: args,
          ...(deadline === undefined ? {} : { deadline }),
        },
        engine.actions,
      ),
  };
}
