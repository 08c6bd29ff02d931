#!/usr/bin/env node
// The agentconf command: the TypeScript CLI, bundled on first use (no build step; see
// protocol/loading/bundled-import.js).
import { fileURLToPath, URL } from 'node:url';
import { importTypeScript } from '../protocol/loading/bundled-import.js';

const { main } = await importTypeScript(fileURLToPath(new URL('../cli/main.ts', import.meta.url)));
process.exitCode = await main(process.argv.slice(2));
