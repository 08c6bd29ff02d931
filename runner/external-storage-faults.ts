/**
 * Storage faults in a gateway the harness does not start (SUT `external.storageFault`,
 * docs/sut.md): the operator's commands turn the fault on and off inside the running gateway
 * (examples/external-gateway does it with libfiu, as the harness does for a gateway it launches).
 * That the gateway exited meanwhile is seen on the component link: its connection closes. The
 * operator's supervisor starts it again; the run waits until it answers.
 */
import type { FaultProxy } from '../harness/faults/fault-proxy.ts';
import type { Argv, ExternalStorageFaultCommands } from '../harness/sut/sut-config.ts';
import type { StorageFaultControl } from '../suites/framework/context.ts';

export interface ExternalStorageFaultParts {
  readonly commands: ExternalStorageFaultCommands;
  readonly proxy: FaultProxy;
  readonly run: (what: string, argv: Argv) => Promise<void>;
  readonly answersAgain: () => Promise<void>;
}

export function externalStorageFaults(parts: ExternalStorageFaultParts): StorageFaultControl {
  const { commands, proxy, run, answersAgain } = parts;
  return {
    async failWhile<T>(
      fault: 'sync' | 'write',
      during: (exited: Promise<void>) => Promise<T>,
    ): Promise<{ value: T; exited: boolean }> {
      // Set by the link's close, outside this function's control flow.
      const state = { exited: false };
      let onClosed = (): void => undefined;
      const gone = new Promise<void>((resolve) => {
        onClosed = () => {
          state.exited = true;
          resolve();
        };
        proxy.once('closed', onClosed);
      });
      let value: T;
      try {
        await run(`storageFault.${fault}`, commands[fault]);
        value = await during(gone);
      } catch (error) {
        proxy.off('closed', onClosed);
        await run('storageFault.restore', commands.restore).catch(() => undefined);
        if (state.exited) await answersAgain();
        throw error;
      }
      proxy.off('closed', onClosed);
      const restored = run('storageFault.restore', commands.restore);
      // A gateway that exited was started again by its supervisor without the fault; one still
      // running whose fault could not be turned off would fail every later case for it.
      if (state.exited) {
        await restored.catch(() => undefined);
        await answersAgain();
      } else {
        await restored;
      }
      return { value, exited: state.exited };
    },
  };
}
