/**
 * A correction to the evaluator's `properties` keyword (@hyperjump/json-schema 1.18.0). It looks an
 * instance member up in the compiled name→subschema map with `name in map`, so a member the schema
 * does not declare but that names an Object.prototype property — "constructor", "toString",
 * "__proto__" — is found on the prototype and evaluation throws. Tool arguments are caller-chosen
 * JSON, and those are legal member names (#json-encoding), so every schema using `properties`
 * would refuse them by crashing. Giving the compiled map no prototype leaves only declared names.
 * Installed through the evaluator's keyword API under the same keyword id, so compiled and
 * serialized forms are unchanged.
 */
import { addKeyword, getKeyword } from '@hyperjump/json-schema/experimental';

const PROPERTIES_KEYWORD = 'https://json-schema.org/keyword/properties';

/** Keyword objects this module installed, so re-applying the posture does not wrap them again. */
const installed = new WeakSet<object>();

type PropertySchemas = Record<string, string>;

export function installPropertiesFix(): void {
  const original = getKeyword<PropertySchemas>(PROPERTIES_KEYWORD);
  if (installed.has(original)) return;
  const fixed: typeof original = {
    ...original,
    interpret: (properties, instance, context) => {
      if (Object.getPrototypeOf(properties) !== null) Object.setPrototypeOf(properties, null);
      return original.interpret(properties, instance, context);
    },
  };
  installed.add(fixed);
  addKeyword(fixed);
}
