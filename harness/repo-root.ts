/** The repository's root directory, for the files the harness ships with (fixtures, suites). */
import { resolve } from 'node:path';

export const REPO_ROOT = resolve(import.meta.dirname, '..');
