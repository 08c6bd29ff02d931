#!/usr/bin/env node
// The agentconf command: the TypeScript CLI as one bundle, built by `npm pack` for the packed
// package and on first use in a checkout, which needs no build step
// (protocol/loading/bundled-import.js).
import { fileURLToPath, URL } from 'node:url';
import { importTypeScript } from '../protocol/loading/bundled-import.js';

const { main } = await importTypeScript(fileURLToPath(new URL('../cli/main.ts', import.meta.url)));
process.exitCode = await main(process.argv.slice(2));
