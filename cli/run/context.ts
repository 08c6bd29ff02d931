/** What every step of a started `agentconf run` shares: its plan, its output, its stop and its servers. */
import type { ServerProvider } from '../../harness/federation/server-provider.ts';
import type { CliIo } from '../io.ts';
import type { RunStopper } from '../run-interrupt.ts';
import type { RunPlan } from './plan.ts';

export interface RunContext {
  readonly plan: RunPlan;
  readonly io: CliIo;
  readonly stopper: RunStopper;
  readonly provider: ServerProvider;
  /** One line to stdout. */
  readonly log: (line: string) => void;
}
