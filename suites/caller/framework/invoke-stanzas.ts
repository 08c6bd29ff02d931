/**
 * Reading the caller's <invoke/> stanzas as the fake target recorded them: the parsed request
 * and what the replay fingerprint of #invocation covers that a target can see (request ID, tool,
 * pins, canonical arguments, deadline), to compare a retry with the request it repeats.
 */
import type { RecordedStanza } from '../../../harness/fake-target/index.ts';
import { canonicalJson } from '../../../protocol/json/canonical.ts';
import { parseStrictJson } from '../../../protocol/json/strict-json.ts';
import { NS_AGENT_TASK } from '../../../protocol/namespaces.ts';
import { parseInvoke, type Invoke } from '../../../protocol/stanza/index.ts';

export function invokeOf(stanza: RecordedStanza): Invoke {
  const payload = stanza.element.getChild('invoke', NS_AGENT_TASK);
  if (payload === undefined) throw new Error(`not an invoke: ${stanza.xml}`);
  return parseInvoke(payload);
}

function canonicalArguments(text: string): string {
  try {
    return canonicalJson(parseStrictJson(text));
  } catch {
    return `(not JSON) ${text}`;
  }
}

/** The fingerprinted content of an invoke, member by member, as readable text. */
export function fingerprintedContent(stanza: RecordedStanza): Record<string, string> {
  const invoke = invokeOf(stanza);
  return {
    to: stanza.to ?? '(none)',
    'request-id': invoke.requestId,
    tool: invoke.tool,
    'api-version': invoke.apiVersion,
    'manifest-hash': `${invoke.manifestHash.algo}:${invoke.manifestHash.value}`,
    arguments: canonicalArguments(invoke.argumentsJson),
    deadline: invoke.deadline?.text ?? '(none)',
  };
}

/** The members whose values differ between two invokes (empty when the content is identical). */
export function fingerprintDifferences(first: RecordedStanza, second: RecordedStanza): string[] {
  const a = fingerprintedContent(first);
  const b = fingerprintedContent(second);
  return Object.keys(a).filter((key) => a[key] !== b[key]);
}
