/**
 * The validation worker thread (see budget.ts). The gateway thread owns the clock and terminates
 * this thread when a budget runs out, the only portable way to stop a runaway regular expression or
 * a deep evaluation (#security); this file only wires messages to a WorkerHandler.
 */
import { parentPort } from 'node:worker_threads';
import { compileToolSchema } from './compile.ts';
import { WorkerHandler } from './worker-handler.ts';
import type { WorkerMessage, WorkerReply, WorkerRequest } from './worker-protocol.ts';

const port = parentPort;
if (port === null) throw new Error('validation-worker.ts runs only as a worker thread');
const handler = new WorkerHandler();
// A batch is evaluated in order and answered in one message: the gateway thread runs one budget
// clock per batch (budget.ts).
let evaluating: Promise<void> = Promise.resolve();
port.on('message', (batch: readonly WorkerRequest[]) => {
  evaluating = evaluating.then(async () => {
    const replies: WorkerReply[] = [];
    for (const request of batch) replies.push(await handler.handle(request));
    port.postMessage({ type: 'replies', replies } satisfies WorkerMessage);
  });
});

// Compile the meta-schema and exercise the evaluator before accepting work, so a request's budget
// is spent on its own evaluation and not on this thread's first compile.
const warmUp = await compileToolSchema(
  { type: 'object', properties: { a: { pattern: '^a' } } },
  { direction: 'input' },
);
warmUp.validate({ a: 'a' });
port.postMessage({ type: 'ready' } satisfies WorkerMessage);
