// Entry point of a validation worker. On Node 20 a worker thread does not inherit the TypeScript
// loader its parent runs under, so it registers tsx itself (as bin/run-ts.js does) before loading
// the TypeScript worker module.
import { register } from 'tsx/esm/api';

register();
await import('./validation-worker.ts');
