/**
 * A gateway-like process for the SIGKILL test: opens the store file given as argv[2], starts a
 * task engine whose runtime counts the side effect in the ledger and then never finishes,
 * admits one invocation (request ID argv[3]) and prints what happened. The parent kills it
 * with SIGKILL and reopens the file.
 */
import type { Element } from '@xmpp/xml';
import { parseAccepted } from '../../../protocol/stanza/task-invoke.ts';
import { GatewayStore } from '../../store/gateway-store.ts';
import type { ToolRuntime } from '../../runtime/tool-runtime.ts';
import { TaskEngine } from '../task-engine.ts';
import { BOB, POLICY, WEATHER, invokeRequest, seedWorld } from './engine-kit.ts';

const [path, requestId] = process.argv.slice(2);
if (path === undefined || requestId === undefined) throw new Error('usage: crash-child.ts DB REQUEST-ID');

const store = GatewayStore.open(path, { now: () => Date.now() });
seedWorld(store);
const runtime: ToolRuntime = {
  name: 'crash',
  execute() {
    const count = store.ledger.increment('crash-side-effect');
    process.stdout.write(`EXECUTING ${count}\n`);
    return new Promise<void>(() => undefined);
  },
};
const engine = TaskEngine.start({
  store,
  policy: () => POLICY,
  runtimes: new Map([[WEATHER, runtime]]),
  deliver: (_message: Element) => undefined,
  replayWindowSeconds: 600,
});
const outcome = await engine.invoke(BOB, WEATHER, invokeRequest(store, { requestId }));
if (!outcome.ok) throw new Error(`not admitted: ${outcome.fault.condition}`);
process.stdout.write(`ADMITTED ${parseAccepted(outcome.payload).taskId}\n`);
// Keep running until killed.
setInterval(() => undefined, 60_000);
