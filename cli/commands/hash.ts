/**
 * agentconf hash FILE: strict I-JSON parse (#registration-flow), RFC 8785 canonical bytes,
 * SHA-256, printed as the XEP-0300 <hash/> a gateway would advertise. Any I-JSON violation
 * exits 1 naming the rule and its position, because hashing invalid input is forbidden.
 */
import type { CanonicalDocument } from '../../protocol/json/canonical.ts';
import { JsonRejection } from '../../protocol/json/json-rejection.ts';
import { parseStrictCanonical } from '../../protocol/json/strict-canonical.ts';
import { buildHash } from '../../protocol/stanza/hash.ts';
import { serialize } from '../../protocol/stanza/xml-serialize.ts';
import { EXIT, readInput } from '../io.ts';
import type { Command } from '../main.ts';
import { expectPositionals, parseCommandArgs, type CommandSpec } from '../options.ts';

const SPEC = {
  name: 'hash',
  summary: 'canonical SHA-256 of a JSON document as an XEP-0300 <hash/> (--value: Base64 only)',
  usage: ['hash FILE'],
  options: {
    value: { type: 'boolean', description: 'print only the Base64 hash value, not the <hash/> element' },
  },
  example: 'hash fixtures/manifests/weather-minimal.json --value',
  notes:
    'Exit 1 names the I-JSON rule a document breaks (#registration-flow): invalid input is never hashed.',
} as const satisfies CommandSpec;

export const hashCommand: Command = {
  spec: SPEC,
  run(args, io) {
    const { values, positionals } = parseCommandArgs(SPEC, args);
    expectPositionals(positionals, 1, 'the FILE to hash');
    const bytes = readInput(io, positionals[0]);
    let document: CanonicalDocument;
    try {
      ({ document } = parseStrictCanonical(bytes));
    } catch (error) {
      if (!(error instanceof JsonRejection)) throw error;
      io.err(`invalid: ${positionals[0] ?? ''}: ${error.rule} (${error.classification}): ${error.message}\n`);
      return Promise.resolve(EXIT.invalid);
    }
    io.out(values.value ? `${document.hash.value}\n` : `${serialize(buildHash(document.hash))}\n`);
    return Promise.resolve(EXIT.ok);
  },
};
