/**
 * The validation worker thread (see budget.ts). The gateway thread owns the clock and terminates
 * this thread when a budget runs out, the only portable way to stop a runaway regular expression or
 * a deep evaluation (#security); this file only wires messages to a WorkerHandler.
 */
import { parentPort } from 'node:worker_threads';
import { compileToolSchema } from './compile.ts';
import { WorkerHandler } from './worker-handler.ts';
import type { WorkerReply, WorkerRequest } from './worker-protocol.ts';

const port = parentPort;
if (port === null) throw new Error('validation-worker.ts runs only as a worker thread');
const handler = new WorkerHandler();
port.on('message', (request: WorkerRequest) => {
  void handler.handle(request).then((reply) => {
    port.postMessage(reply);
  });
});

// Compile the meta-schema and exercise the evaluator before accepting work, so a request's budget
// is spent on its own evaluation and not on this thread's first compile.
const warmUp = await compileToolSchema(
  { type: 'object', properties: { a: { pattern: '^a' } } },
  { direction: 'input' },
);
warmUp.validate({ a: 'a' });
port.postMessage({ type: 'ready' } satisfies WorkerReply);
