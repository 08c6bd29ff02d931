/**
 * XEP-0300 <hash xmlns='urn:xmpp:hashes:2' algo='…'>Base64</hash>, and the agent-api/agent-task
 * hashContainer elements (<manifest-hash/>, <schema-hash/>) that hold exactly one of them.
 * Version 0 requires sha-256 (#registration-flow); the codec accepts any NCName algorithm so a
 * caller can answer a foreign algorithm with the error the spec wants rather than a parse error.
 */
import { xml } from '@xmpp/xml';
import type { Element } from '@xmpp/xml';
import { HASH_ALGO_SHA256, NS } from '../namespaces.ts';
import {
  checkAttributes,
  expectElement,
  lexAttribute,
  lexed,
  only,
  readSequence,
  simpleContent,
} from './element-reader.ts';
import { buildFailure, lexForBuild } from './element-writer.ts';
import type { BuildTarget } from './element-writer.ts';
import { lexHashAlgo, lexHashValue } from './lexical.ts';

export interface Hash {
  readonly algo: string;
  /** The canonical Base64 text, exactly as carried on the wire. */
  readonly value: string;
}

const HASH: BuildTarget = { local: 'hash', ns: NS.hashes };

export function isSha256(hash: Hash): boolean {
  return hash.algo === HASH_ALGO_SHA256;
}

export function sameHash(a: Hash, b: Hash): boolean {
  return a.algo === b.algo && a.value === b.value;
}

export function parseHash(element: Element): Hash {
  expectElement(element, 'hash', NS.hashes);
  checkAttributes(element, ['algo']);
  const algo = lexAttribute(element, 'algo', lexHashAlgo);
  const value = simpleContent(element);
  lexed(element, undefined, lexHashValue(value, algo));
  return { algo, value };
}

export function buildHash(hash: Hash): Element {
  lexForBuild(HASH, 'algo', hash.algo, lexHashAlgo);
  const result = lexHashValue(hash.value, hash.algo);
  if (!result.ok) throw buildFailure(HASH, result.rule, result.detail);
  return xml('hash', { xmlns: NS.hashes, algo: hash.algo }, hash.value);
}

/** Reads a hashContainer such as <manifest-hash/>: exactly one <hash/>, nothing else. */
export function parseHashContainer(element: Element, local: string, ns: string): Hash {
  expectElement(element, local, ns);
  checkAttributes(element, []);
  const [hashes] = readSequence(element, [{ local: 'hash', ns: NS.hashes }]);
  return parseHash(only(hashes));
}

/** A hashContainer in its parent's namespace (no xmlns of its own: it is always built as a child). */
export function buildHashContainer(local: string, hash: Hash): Element {
  return xml(local, {}, buildHash(hash));
}
