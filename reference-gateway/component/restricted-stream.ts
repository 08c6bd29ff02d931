/**
 * The component stream as RFC 6120 §11.1 restricts it: no comments, no processing instructions
 * (the XML declaration before the stream header aside), no DTD (internal or external subset, so
 * no entity declarations) and no entity references but the five predefined ones and character
 * references. A server never forwards such input, but the link is a socket (#security: XML
 * parsing is an attacker-controlled surface): what reads it must neither resolve an entity nor
 * stall on a DTD. The library's parser (ltx) skips comments and DTDs silently — a DTD swallows
 * every later stanza until something happens to end in `]]>` or `-->` — and throws out of the
 * socket's data handler on an undeclared entity, which would end the process.
 *
 * So every chunk is scanned before the library's parser sees it. The first restricted feature
 * ends the stream: what came before it is parsed, the rest is not, and the owner is told
 * (GatewayComponent sends <restricted-xml/>, RFC 6120 §4.9.3.18, closes the stream and
 * reconnects). CDATA sections are legal XML and pass, rewritten as escaped character data
 * (#json-encoding: JSON is read the same way however it is split; ltx itself loses the text
 * after a CDATA section). Anything else the library's
 * parser cannot read becomes a parser error (the library then sends <bad-format/>), never an
 * exception.
 */
import { Parser } from '@xmpp/xml';

export type RestrictedFeature = 'comment' | 'processing-instruction' | 'dtd' | 'entity-reference';

export interface RestrictedFinding {
  readonly feature: RestrictedFeature;
  /** Where in the scanned chunk the feature became certain. */
  readonly at: number;
}

const PREDEFINED = new Set(['amp', 'lt', 'gt', 'quot', 'apos']);
const CHARACTER_REFERENCE = /^#(?:[0-9]{1,7}|x[0-9a-fA-F]{1,6})$/;
/** Longer than any predefined entity or character reference. */
const LONGEST_REFERENCE = 9;
const CDATA_OPEN = '[CDATA[';

type State = 'text' | 'lt' | 'bang' | 'cdata' | 'reference' | 'declaration';

/**
 * Finds restricted XML in a stream read chunk by chunk (state carries across chunks) and rewrites
 * each CDATA section as escaped character data: ltx 3 drops the text that follows a CDATA
 * section up to the next tag, so what it reads never contains one.
 */
export class RestrictedXmlScanner {
  #state: State = 'text';
  #bang = '';
  #reference = '';
  #brackets = 0;
  #question = false;
  #rootOpened = false;

  /** The chunk as ltx may read it, up to the first restricted feature (reported with it). */
  scan(chunk: string): { readonly output: string; readonly finding?: RestrictedFinding } {
    let output = '';
    for (let index = 0; index < chunk.length; index += 1) {
      const c = chunk[index] ?? '';
      switch (this.#state) {
        case 'text':
          if (c === '<') this.#state = 'lt';
          else {
            if (c === '&') {
              this.#state = 'reference';
              this.#reference = '';
            }
            output += c;
          }
          break;
        case 'lt':
          if (c === '!') {
            this.#state = 'bang';
            this.#bang = '';
          } else if (c === '?') {
            // Only the XML declaration, before the stream header (RFC 6120 §11.5).
            if (this.#rootOpened)
              return { output, finding: { feature: 'processing-instruction', at: index } };
            // Not passed on (ltx ignores it anyway): ltx ends a PI only at a '?' and '>' in the
            // same write, so a declaration split between them swallowed the stream header.
            this.#state = 'declaration';
            this.#question = false;
          } else {
            if (c !== '/') this.#rootOpened = true;
            this.#state = 'text';
            output += `<${c}`;
          }
          break;
        case 'bang':
          this.#bang += c;
          if (this.#bang === CDATA_OPEN) {
            this.#state = 'cdata';
            this.#brackets = 0;
          } else if (!CDATA_OPEN.startsWith(this.#bang)) {
            return {
              output,
              finding: { feature: this.#bang.startsWith('-') ? 'comment' : 'dtd', at: index },
            };
          }
          break;
        case 'cdata':
          if (c === ']') this.#brackets += 1;
          else if (c === '>' && this.#brackets >= 2) {
            output += ']'.repeat(this.#brackets - 2);
            this.#brackets = 0;
            this.#state = 'text';
          } else {
            output +=
              ']'.repeat(this.#brackets) +
              (c === '&' ? '&amp;' : c === '<' ? '&lt;' : c === '>' ? '&gt;' : c);
            this.#brackets = 0;
          }
          break;
        case 'reference':
          output += c;
          if (c === ';') {
            const name = this.#reference;
            if (!PREDEFINED.has(name) && !CHARACTER_REFERENCE.test(name)) {
              return { output, finding: { feature: 'entity-reference', at: index } };
            }
            this.#state = 'text';
          } else {
            this.#reference += c;
            if (this.#reference.length > LONGEST_REFERENCE || /[\s<&]/.test(c)) {
              return { output, finding: { feature: 'entity-reference', at: index } };
            }
          }
          break;
        case 'declaration':
          if (c === '>' && this.#question) this.#state = 'text';
          this.#question = c === '?';
          break;
      }
    }
    return { output };
  }
}

/**
 * The library's parser class (as @xmpp/connection instantiates it, one per stream) behind the
 * scanner: `onRestricted` is called once, at the first restricted feature, and nothing after it
 * is parsed.
 */
export function restrictedParserClass(onRestricted: (feature: RestrictedFeature) => void): typeof Parser {
  return class RestrictedParser extends Parser {
    readonly #scanner = new RestrictedXmlScanner();
    #refused = false;

    override write(data: string): void {
      if (this.#refused) return;
      const { output: allowed, finding } = this.#scanner.scan(data);
      try {
        if (allowed !== '') super.write(allowed);
      } catch (error) {
        // ltx throws on what it cannot unescape (a character reference outside XML's Char).
        this.#refused = true;
        (this as unknown as { emit(event: 'error', error: Error): void }).emit(
          'error',
          error instanceof Error ? error : new Error(String(error)),
        );
        return;
      }
      if (finding !== undefined) {
        this.#refused = true;
        onRestricted(finding.feature);
      }
    }
  };
}
