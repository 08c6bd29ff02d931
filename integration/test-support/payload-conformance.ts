/**
 * Schema validation of every reply payload the integration tests receive (issue 4, item 8:
 * standard-client browsability). A payload is split by namespace: each element is validated
 * against its own namespace's schema with the elements of other namespaces taken out, and each
 * taken-out subtree is validated the same way on its own. That is how XMPP extends payloads
 * (an RSM <set/> inside a disco#items <query/>, a XEP-0128 form inside disco#info), which the
 * host XEPs' schemas do not model.
 *
 * - XEP-0030, XEP-0059, XEP-0004 and XEP-0055 namespaces: the schemas extracted from the shared
 *   XEP sources (xep-schemas.ts), in one xmllint batch per audit (protocol/xsd/xmllint-batch.ts;
 *   XsdValidator itself routes only the two agent namespaces). Without the shared directory
 *   these are NOT RUN, announced once.
 * - urn:xmpp:agent-api:0 and urn:xmpp:agent-task:0: whole, against the committed normative XSDs
 *   through XsdValidator.
 * - Any other namespace in a result payload has no schema here and is reported as a problem:
 *   the gateway has no business sending it.
 */
import { Element } from '@xmpp/xml';
import type { Caller } from '../../harness/driver/index.ts';
import {
  childElementsOf,
  isElementNode,
  localNameOf,
  namespaceOf,
  serialize,
  setAttribute,
} from '../../protocol/stanza/index.ts';
import { sharedAvailable } from '../../protocol/test-support/shared-paths.ts';
import { schemaForNamespace } from '../../protocol/xsd/root-element.ts';
import { XsdValidator, type XsdResult } from '../../protocol/xsd/validator.ts';
import { validateBatch } from '../../protocol/xsd/xmllint-batch.ts';
import type { SchemaBundle } from '../../protocol/xsd/schema-bundle.ts';
import { XEPS_DIR, extractXepSchemas, isXepNamespace, xepSchemaBundle } from './xep-schemas.ts';

/** One element to validate, and where it came from (for the failure message). */
export interface Fragment {
  readonly namespace: string | undefined;
  readonly xml: string;
}

export interface PayloadProblem {
  /** Where the payload was received, e.g. "bob@server.example/desk ← agents.example (iq-…)". */
  readonly source: string;
  readonly payload: string;
  readonly fragment: string;
  readonly errors: readonly string[];
}

function copyInNamespace(element: Element, namespace: string | undefined, outside: Element[]): Element {
  const copy = new Element(localNameOf(element));
  for (const [name, value] of Object.entries(element.attrs)) {
    if (name === 'xmlns' || name.startsWith('xmlns:') || typeof value !== 'string') continue;
    setAttribute(copy, name, value);
  }
  for (const child of element.children) {
    if (!isElementNode(child)) {
      copy.children.push(child);
    } else if (namespaceOf(child) === namespace) {
      const nested = copyInNamespace(child, namespace, outside);
      nested.parent = copy;
      copy.children.push(nested);
    } else {
      outside.push(child);
    }
  }
  return copy;
}

/**
 * `element` without its foreign-namespace descendants, then each of those subtrees the same
 * way, each as a standalone document declaring its namespace.
 */
export function splitByNamespace(element: Element): Fragment[] {
  const namespace = namespaceOf(element);
  const outside: Element[] = [];
  const own = copyInNamespace(element, namespace, outside);
  if (namespace !== undefined) setAttribute(own, 'xmlns', namespace);
  return [{ namespace, xml: serialize(own) }, ...outside.flatMap(splitByNamespace)];
}

function describeFailure(result: XsdResult): string[] {
  return result.valid ? [] : result.errors.map((error) => `${result.failure}: ${error.message}`);
}

export class PayloadConformance {
  readonly #agentValidator = new XsdValidator();
  readonly #xepBundle: SchemaBundle | undefined;
  /** Per caller: how far its inbound stanzas have been collected. */
  readonly #audited = new WeakMap<Caller, number>();
  readonly #collected: { source: string; payload: Element }[] = [];
  readonly #malformed: PayloadProblem[] = [];
  #validated = 0;

  constructor() {
    // One instance per test file, so the NOT RUN notice appears once per file that lacks them.
    const available = sharedAvailable(
      XEPS_DIR,
      'XEP-0030/0059/0004/0055 schema validation of reply payloads',
    );
    this.#xepBundle = available ? xepSchemaBundle(extractXepSchemas()) : undefined;
  }

  /** Whether XEP-namespace payloads are validated (false: the shared XEP sources are absent). */
  get xepSchemasAvailable(): boolean {
    return this.#xepBundle !== undefined;
  }

  /** How many payloads have been validated so far. */
  get validated(): number {
    return this.#validated;
  }

  /** Validates payloads (any number, in one batch per schema family); returns the problems. */
  async validate(
    payloads: readonly { readonly source: string; readonly payload: Element }[],
  ): Promise<PayloadProblem[]> {
    const agent: { source: string; payload: string; fragment: Fragment }[] = [];
    const xep: { source: string; payload: string; fragment: Fragment }[] = [];
    const problems: PayloadProblem[] = [];
    for (const { source, payload } of payloads) {
      const text = serialize(payload);
      if (schemaForNamespace(namespaceOf(payload) ?? null) !== undefined) {
        agent.push({ source, payload: text, fragment: { namespace: namespaceOf(payload), xml: text } });
        continue;
      }
      for (const fragment of splitByNamespace(payload)) {
        if (isXepNamespace(fragment.namespace)) {
          if (this.#xepBundle !== undefined) xep.push({ source, payload: text, fragment });
        } else {
          problems.push({
            source,
            payload: text,
            fragment: fragment.xml,
            errors: [`no schema for namespace ${fragment.namespace ?? '(none)'} in a reply payload`],
          });
        }
      }
    }
    const [agentResults, xepResults] = await Promise.all([
      this.#agentValidator.validateAll(agent.map((entry) => entry.fragment.xml)),
      this.#xepBundle === undefined || xep.length === 0
        ? Promise.resolve([])
        : // The batch echoes a schema label it does not use; the bundle decides what validates.
          validateBatch(
            xep.map((entry) => ({ xml: entry.fragment.xml, schema: 'agent-api' as const })),
            this.#xepBundle,
          ),
    ]);
    this.#validated += payloads.length;
    const judged = [
      ...agent.map((entry, index) => ({ entry, result: agentResults[index] })),
      ...xep.map((entry, index) => ({ entry, result: xepResults[index] })),
    ];
    for (const { entry, result } of judged) {
      const errors = result === undefined ? ['no verdict'] : describeFailure(result);
      if (errors.length > 0) {
        problems.push({ source: entry.source, payload: entry.payload, fragment: entry.fragment.xml, errors });
      }
    }
    return problems;
  }

  /**
   * Takes the payload of every IQ result the callers received from the gateway (its domain or a
   * JID on it) since the previous call, noting the test that received it. Cheap: validation
   * waits for verify(), so that a test file pays for one xmllint run, not one per test.
   */
  collect(callers: readonly Caller[], gatewayDomain: string, test: string): void {
    const fromGateway = (from: string | undefined): boolean =>
      from !== undefined && (from === gatewayDomain || from.endsWith(`@${gatewayDomain}`));
    for (const caller of callers) {
      const start = this.#audited.get(caller) ?? 0;
      const received = caller.inbound.slice(start);
      this.#audited.set(caller, start + received.length);
      for (const stanza of received) {
        if (stanza.name !== 'iq' || stanza.type !== 'result' || !fromGateway(stanza.from)) continue;
        const source = `${test}: ${caller.jid} ← ${stanza.from ?? '(no from)'} (${stanza.id ?? 'no id'})`;
        if (stanza.element === undefined) {
          const reason = stanza.parseError?.message ?? 'not parsed';
          this.#malformed.push({ source, payload: stanza.xml, fragment: stanza.xml, errors: [reason] });
          continue;
        }
        const [payload] = childElementsOf(stanza.element);
        if (payload !== undefined) this.#collected.push({ source, payload });
      }
    }
  }

  /** Validates everything collected so far and throws listing every problem. */
  async verify(): Promise<void> {
    const payloads = this.#collected.splice(0);
    const problems = [...this.#malformed.splice(0), ...(await this.validate(payloads))];
    if (problems.length > 0) {
      throw new Error(
        `${problems.length} reply payload(s) fail their XML Schema (XEP-0030/0059/0004/0055, #schema):\n` +
          problems
            .map(
              (problem) =>
                `- ${problem.source}\n  payload:  ${problem.payload}\n  fragment: ${problem.fragment}\n` +
                problem.errors.map((error) => `  ${error}`).join('\n'),
            )
            .join('\n'),
      );
    }
  }
}
