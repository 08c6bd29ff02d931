/**
 * Batch-first XSD validation of agent-api / agent-task elements (#schema).
 *
 * `validateElements` validates a list in one xmllint run. `XsdValidator.validate` is for
 * code that meets documents one at a time (suites checking every stanza they see): requests
 * made in the same event-loop turn are collected and validated together, and requests that
 * arrive while a run is in flight join the next run, so throughput stays close to the
 * batched rate without callers coordinating.
 */
import { scanRootElement, schemaForNamespace } from './root-element.ts';
import { bundleSchemas, committedSchemaTexts, type SchemaBundle, type XsdSchemaTexts } from './schema-bundle.ts';
import { validateBatch, type RoutedDocument } from './xmllint-batch.ts';
import type { XsdResult } from './xsd-result.ts';

export interface XsdValidatorOptions {
  /** Schema texts to validate against; the committed xsd/ files by default. */
  readonly schemas?: XsdSchemaTexts;
  /** Upper bounds per xmllint run; larger queues are split into several runs. */
  readonly maxBatchDocuments?: number;
  readonly maxBatchCharacters?: number;
}

interface Pending {
  readonly document: RoutedDocument;
  readonly resolve: (result: XsdResult) => void;
  readonly reject: (error: unknown) => void;
}

const DEFAULT_MAX_BATCH_DOCUMENTS = 2000;
const DEFAULT_MAX_BATCH_CHARACTERS = 8 * 1024 * 1024;

export class XsdValidator {
  private readonly bundle: SchemaBundle;
  private readonly maxDocuments: number;
  private readonly maxCharacters: number;
  private readonly queue: Pending[] = [];
  private scheduled = false;
  private draining = false;
  private runs = 0;

  constructor(options: XsdValidatorOptions = {}) {
    this.bundle = bundleSchemas(options.schemas ?? committedSchemaTexts());
    this.maxDocuments = options.maxBatchDocuments ?? DEFAULT_MAX_BATCH_DOCUMENTS;
    this.maxCharacters = options.maxBatchCharacters ?? DEFAULT_MAX_BATCH_CHARACTERS;
  }

  /** How many xmllint runs this validator has started (observability for batching). */
  get xmllintRuns(): number {
    return this.runs;
  }

  validate(xml: string): Promise<XsdResult> {
    const root = scanRootElement(xml);
    if (!root.ok) return Promise.resolve({ valid: false, failure: root.failure, errors: [root.error] });
    const schema = schemaForNamespace(root.namespace);
    if (schema === undefined) {
      const namespace = root.namespace === null ? 'no namespace' : `namespace ${root.namespace}`;
      return Promise.resolve({
        valid: false,
        failure: 'unknown-namespace',
        errors: [{ line: null, message: `root element ${root.localName} is in ${namespace}; no normative schema applies` }],
      });
    }
    return new Promise<XsdResult>((resolve, reject) => {
      this.queue.push({ document: { xml, schema }, resolve, reject });
      this.schedule();
    });
  }

  validateAll(xmlTexts: readonly string[]): Promise<XsdResult[]> {
    return Promise.all(xmlTexts.map((xml) => this.validate(xml)));
  }

  private schedule(): void {
    if (this.scheduled || this.draining) return;
    this.scheduled = true;
    // setImmediate, not a microtask: it also gathers requests issued from promise chains
    // that settle within the current turn.
    setImmediate(() => {
      this.scheduled = false;
      void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.draining = true;
    try {
      while (this.queue.length > 0) {
        const batch = this.takeBatch();
        this.runs += 1;
        try {
          const results = await validateBatch(
            batch.map((pending) => pending.document),
            this.bundle,
          );
          batch.forEach((pending, index) => {
            const result = results[index];
            if (result === undefined) pending.reject(new Error('xmllint batch returned too few results'));
            else pending.resolve(result);
          });
        } catch (error) {
          for (const pending of batch) pending.reject(error);
        }
      }
    } finally {
      this.draining = false;
    }
  }

  private takeBatch(): Pending[] {
    let characters = 0;
    let count = 0;
    for (const pending of this.queue) {
      if (count >= this.maxDocuments) break;
      if (count > 0 && characters + pending.document.xml.length > this.maxCharacters) break;
      characters += pending.document.xml.length;
      count += 1;
    }
    return this.queue.splice(0, count);
  }
}

let shared: XsdValidator | undefined;

/** One result per input, in order, validated against the committed XSDs. */
export function validateElements(xmlTexts: readonly string[]): Promise<XsdResult[]> {
  shared ??= new XsdValidator();
  return shared.validateAll(xmlTexts);
}

export type { XsdError, XsdFailure, XsdResult, XsdSchemaId } from './xsd-result.ts';
export type { XsdSchemaTexts } from './schema-bundle.ts';
