/**
 * The one door to the JSON Schema evaluator (evaluator-module.ts: @hyperjump/json-schema in the
 * posture #schemas and #security require), loaded on first use. A gateway whose world's intakes
 * were cached (reference-gateway/registration/intake-cache.ts) compiles nothing until the first
 * invocation, and its start no longer loads the evaluator's ~100 modules (60–70 ms on a quiet
 * 2-core machine; more while the servers start beside it).
 */
export type { OutputUnit, SchemaObject, Validator } from '@hyperjump/json-schema/draft-2020-12';
export type { SchemaDocument } from '@hyperjump/json-schema/experimental';

export type Evaluator = typeof import('./evaluator-module.ts');

let loading: Promise<Evaluator> | undefined;
let loaded: Evaluator | undefined;

export function loadEvaluator(): Promise<Evaluator> {
  loading ??= import('./evaluator-module.ts').then((module) => {
    loaded = module;
    return module;
  });
  return loading;
}

/**
 * The evaluator, for code that holds something only the evaluator makes (a Validator): it was
 * loaded to make it.
 */
export function loadedEvaluator(): Evaluator {
  if (loaded === undefined) throw new Error('the JSON Schema evaluator is used before it was loaded');
  return loaded;
}
