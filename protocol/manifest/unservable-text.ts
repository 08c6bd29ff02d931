/**
 * Text that can be registered but never served (interp-12). RFC 8785 escapes only
 * controls, `"` and `\`, so U+FFFE and U+FFFF, even when the source wrote them as `\uFFFF`,
 * come out literally in the canonical bytes; XML 1.0 forbids them even as character
 * references, so the <json/> of #manifest-retrieval could not carry the hashed bytes. The
 * only conforming path is to refuse such a manifest at registration. Other noncharacters
 * (U+FDD0, U+1FFFE) are legal XML and pass.
 *
 * The same walk refuses values that could not be canonicalized at all (lone surrogates,
 * non-finite numbers); the strict parse already excludes them, but validateManifest also
 * accepts values built in code.
 */
import type { JsonValue } from '../json/json-value.ts';
import { childPointer, type Violation } from './schema-violations.ts';

const XML_FORBIDDEN_NONCHARACTER = /[\uFFFE\uFFFF]/;
const LONE_SURROGATE = /\p{Cs}/u;

function textViolation(text: string, path: string, what: string): Violation | undefined {
  if (LONE_SURROGATE.test(text)) {
    return { rule: 'value:lone-surrogate', path, message: `${what} contains a lone surrogate` };
  }
  if (XML_FORBIDDEN_NONCHARACTER.test(text)) {
    return {
      rule: 'value:unservable-character',
      path,
      message: `${what} contains U+FFFE or U+FFFF, which canonical JSON cannot escape and XML cannot carry`,
    };
  }
  return undefined;
}

interface Pending {
  readonly value: JsonValue;
  readonly path: string;
  /** Set for object members, whose name is checked just before their value. */
  readonly name?: string;
}

/** Violations in document order, one per offending string, member name or number. */
export function unservableValueViolations(value: JsonValue): Violation[] {
  const violations: Violation[] = [];
  // An explicit stack, so a deep value built in code cannot exhaust the call stack.
  const stack: Pending[] = [{ value, path: '' }];
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value: current, path, name } = item;
    const badName = name === undefined ? undefined : textViolation(name, path, 'this member name');
    if (badName !== undefined) violations.push(badName);
    if (typeof current === 'string') {
      const badText = textViolation(current, path, 'this string');
      if (badText !== undefined) violations.push(badText);
    } else if (typeof current === 'number' && !Number.isFinite(current)) {
      violations.push({ rule: 'value:non-finite-number', path, message: 'this number is not finite' });
    } else if (Array.isArray(current)) {
      const children = current.map((element, index) => ({ value: element, path: childPointer(path, index) }));
      // Reversed, so children pop in document order; one push each, because spreading a huge
      // array into push() can overflow the call stack.
      for (const child of children.reverse()) stack.push(child);
    } else if (current !== null && typeof current === 'object') {
      const children = Object.entries(current).map(([member, memberValue]) => ({
        value: memberValue,
        path: childPointer(path, member),
        name: member,
      }));
      for (const child of children.reverse()) stack.push(child);
    }
  }
  return violations;
}
