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
// A batch is evaluated in order and each answer posted as soon as it exists: the gateway thread
// runs the budget clock of one request at a time.
let evaluating: Promise<void> = Promise.resolve();
port.on('message', (batch: readonly WorkerRequest[]) => {
  for (const request of batch) {
    evaluating = evaluating.then(async () => {
      port.postMessage(await handler.handle(request));
    });
  }
});

// Compile the meta-schema and exercise the evaluator before accepting work, so a request's budget
// is spent on its own evaluation and not on this thread's first compile.
const warmUp = await compileToolSchema(
  { type: 'object', properties: { a: { pattern: '^a' } } },
  { direction: 'input' },
);
warmUp.validate({ a: 'a' });
port.postMessage({ type: 'ready' } satisfies WorkerReply);
