#!/usr/bin/env node
// Runs one TypeScript entry point through tsx, so that no build step stands between a clone and a run.
import { register } from 'tsx/esm/api';
import { pathToFileURL } from 'node:url';
import { resolve } from 'node:path';

const [entry, ...rest] = process.argv.slice(2);
if (entry === undefined) {
  process.stderr.write('usage: run-ts.js FILE.ts [ARGS...]\n');
  process.exit(2);
}
register();
process.argv = [process.argv[0] ?? 'node', resolve(entry), ...rest];
await import(pathToFileURL(resolve(entry)).href);
