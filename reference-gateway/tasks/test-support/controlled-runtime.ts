/**
 * A tool runtime the test drives: every execute call becomes an Execution the test awaits
 * and then acts through (progress, input, complete, fail) before ending it.
 */
import type { TaskActions, ToolInvocation, ToolRuntime } from '../../runtime/tool-runtime.ts';

export interface Execution {
  readonly invocation: ToolInvocation;
  readonly actions: TaskActions;
  /** Lets execute resolve. */
  end(): void;
  /** Makes execute reject with `error`. */
  throw(error: Error): void;
}

export class ControlledRuntime implements ToolRuntime {
  readonly name = 'controlled';
  readonly executions: Execution[] = [];
  #waiting: ((execution: Execution) => void)[] = [];

  execute(invocation: ToolInvocation, actions: TaskActions): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const execution: Execution = { invocation, actions, end: resolve, throw: reject };
      this.executions.push(execution);
      const waiter = this.#waiting.shift();
      waiter?.(execution);
    });
  }

  /** The n-th execution (0-based), waiting for it up to `timeoutMs`. */
  execution(index: number, timeoutMs = 5_000): Promise<Execution> {
    const existing = this.executions[index];
    if (existing !== undefined) return Promise.resolve(existing);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`execution ${index} did not start within ${timeoutMs} ms`));
      }, timeoutMs);
      const check = (): void => {
        const found = this.executions[index];
        if (found !== undefined) {
          clearTimeout(timer);
          resolve(found);
          return;
        }
        this.#waiting.push(check);
      };
      this.#waiting.push(check);
    });
  }
}
