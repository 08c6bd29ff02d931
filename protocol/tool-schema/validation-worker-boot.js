// Entry point of a validation worker. On Node 20 a worker thread does not inherit the TypeScript
// loader its parent runs under, so it loads the TypeScript worker module itself, bundled as the
// CLI is (../loading/bundled-import.js: a worker starts in a third of the time tsx takes).
import { fileURLToPath, URL } from 'node:url';
import { importTypeScript } from '../loading/bundled-import.js';

await importTypeScript(fileURLToPath(new URL('./validation-worker.ts', import.meta.url)));
