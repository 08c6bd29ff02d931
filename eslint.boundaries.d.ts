import type { Linter } from 'eslint';

export const LAYERS: Readonly<Record<string, readonly string[]>>;
export const boundariesConfig: Linter.Config;
