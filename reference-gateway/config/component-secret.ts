/**
 * The XEP-0114 shared secret, kept out of logs and serializations (#security: component
 * secrets MUST NOT appear in …; #privacy: operator logs MUST redact secrets). Printing,
 * inspecting or JSON-serializing a config shows `[redacted]`; only `reveal()` gives the value,
 * for the component handshake.
 */
import { inspect } from 'node:util';

const REDACTED = '[redacted]';

export class ComponentSecret {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toString(): string {
    return REDACTED;
  }

  toJSON(): string {
    return REDACTED;
  }

  [inspect.custom](): string {
    return REDACTED;
  }
}
