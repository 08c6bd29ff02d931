/**
 * Strict readers for tool arguments. The gateway validates arguments against the tool's
 * inputSchema before the runtime sees them (#invocation), so a mismatch here means the schema
 * and this parser disagree, or a gateway skipped validation; either way the tool must refuse
 * to guess. Every reader names the offending member by its JSON pointer.
 */
import { appendPointer } from '../json/json-pointer.ts';
import { isJsonObject, type JsonObject, type JsonValue } from '../json/json-value.ts';

export class ArgumentProblem extends Error {
  override readonly name = 'ArgumentProblem';
  constructor(
    readonly pointer: string,
    readonly rule: string,
  ) {
    super(`${pointer === '' ? '(root)' : pointer}: ${rule}`);
  }
}

/** Ledger keys: the alphabet of task identifiers plus ':' (for namespacing), 1 to 128 characters. */
export const LEDGER_KEY_PATTERN = /^[A-Za-z0-9._~:-]{1,128}$/;

/** An object member reader bound to the object's pointer. */
export class ObjectReader {
  constructor(
    readonly value: JsonObject,
    readonly pointer: string,
  ) {}

  static of(value: JsonValue | undefined, pointer: string, allowed: readonly string[]): ObjectReader {
    if (value === undefined || !isJsonObject(value)) throw new ArgumentProblem(pointer, 'not an object');
    for (const member of Object.keys(value)) {
      if (!allowed.includes(member)) {
        throw new ArgumentProblem(appendPointer(pointer, member), 'not a member this object allows');
      }
    }
    return new ObjectReader(value, pointer);
  }

  at(member: string): string {
    return appendPointer(this.pointer, member);
  }

  has(member: string): boolean {
    return Object.hasOwn(this.value, member);
  }

  /** The member's value, or undefined when it is absent (null is a present value). */
  any(member: string): JsonValue | undefined {
    return this.has(member) ? this.value[member] : undefined;
  }

  string(member: string): string | undefined {
    const value = this.any(member);
    if (value === undefined) return undefined;
    if (typeof value !== 'string') throw new ArgumentProblem(this.at(member), 'not a string');
    return value;
  }

  requiredString(member: string): string {
    return this.string(member) ?? missing(this.at(member));
  }

  boolean(member: string): boolean | undefined {
    const value = this.any(member);
    if (value === undefined) return undefined;
    if (typeof value !== 'boolean') throw new ArgumentProblem(this.at(member), 'not a boolean');
    return value;
  }

  requiredBoolean(member: string): boolean {
    return this.boolean(member) ?? missing(this.at(member));
  }

  number(member: string): number | undefined {
    const value = this.any(member);
    if (value === undefined) return undefined;
    if (typeof value !== 'number') throw new ArgumentProblem(this.at(member), 'not a number');
    return value;
  }

  /** An integer in [minimum, maximum]; JSON Schema counts 1.0 as an integer, and so does this. */
  integer(member: string, minimum: number, maximum: number): number | undefined {
    const value = this.number(member);
    if (value === undefined) return undefined;
    if (!Number.isInteger(value) || value < minimum || value > maximum) {
      throw new ArgumentProblem(this.at(member), `not an integer from ${minimum} to ${maximum}`);
    }
    return value;
  }

  object(member: string): JsonObject | undefined {
    const value = this.any(member);
    if (value === undefined) return undefined;
    if (!isJsonObject(value)) throw new ArgumentProblem(this.at(member), 'not an object');
    return value;
  }

  requiredObject(member: string): JsonObject {
    return this.object(member) ?? missing(this.at(member));
  }

  array(member: string): readonly JsonValue[] | undefined {
    const value = this.any(member);
    if (value === undefined) return undefined;
    if (!Array.isArray(value)) throw new ArgumentProblem(this.at(member), 'not an array');
    return value;
  }

  ledgerKey(member: string): string | undefined {
    const value = this.string(member);
    if (value !== undefined && !LEDGER_KEY_PATTERN.test(value)) {
      throw new ArgumentProblem(this.at(member), 'not a ledger key');
    }
    return value;
  }
}

function missing(pointer: string): never {
  throw new ArgumentProblem(pointer, 'required but absent');
}
