/**
 * agentconf hash FILE: strict I-JSON parse (#registration-flow), RFC 8785 canonical bytes,
 * SHA-256, printed as the XEP-0300 <hash/> a gateway would advertise. Any I-JSON violation
 * exits 1 naming the rule and its position, because hashing invalid input is forbidden.
 */
import { parseArgs } from 'node:util';
import { canonicalDocument } from '../../protocol/json/canonical.ts';
import { JsonRejection } from '../../protocol/json/json-rejection.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import { buildHash } from '../../protocol/stanza/hash.ts';
import { serialize } from '../../protocol/stanza/xml-serialize.ts';
import { EXIT, readInput, UsageError } from '../io.ts';
import type { Command } from '../main.ts';

export const hashCommand: Command = {
  name: 'hash',
  usage: 'hash FILE [--value]',
  summary: 'canonical SHA-256 of a JSON document as an XEP-0300 <hash/> (--value: Base64 only)',
  run(args, io) {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: { value: { type: 'boolean', default: false } },
      allowPositionals: true,
    });
    if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
    const bytes = readInput(io, positionals[0]);
    let document;
    try {
      document = canonicalDocument(parseStrictJson(bytes));
    } catch (error) {
      if (!(error instanceof JsonRejection)) throw error;
      io.err(`invalid: ${positionals[0] ?? ''}: ${error.rule} (${error.classification}): ${error.message}\n`);
      return Promise.resolve(EXIT.invalid);
    }
    io.out(values.value ? `${document.hash.value}\n` : `${serialize(buildHash(document.hash))}\n`);
    return Promise.resolve(EXIT.ok);
  },
};
