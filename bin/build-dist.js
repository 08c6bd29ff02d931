#!/usr/bin/env node
// npm pack's prepack step: the CLI and the validation worker bundled into dist/, which the
// packed package runs (protocol/loading/prebuilt.js). `--remove`, its postpack step, deletes
// dist/ again so that the checkout keeps bundling its own sources on first use.
import { buildPrebuilt, removePrebuilt } from '../protocol/loading/prebuilt.js';

const [option, ...rest] = process.argv.slice(2);
if (rest.length > 0 || (option !== undefined && option !== '--remove')) {
  process.stderr.write('usage: build-dist.js [--remove]\n');
  process.exit(2);
}
try {
  if (option === '--remove') removePrebuilt();
  else await buildPrebuilt();
} catch (error) {
  process.stderr.write(`build-dist: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
}
