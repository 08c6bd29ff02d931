/**
 * Pulls the test material and normative artifacts out of the spec's XEP XML: every <code>
 * and <example> block with its caption, text and nearest enclosing section anchor (our
 * requirement keys). Reads the spec with readXml's `spec` mode (protocol/xml/read-xml.ts) (see there for why).
 */
import { attributeValue, textContent, walk } from '../../protocol/xml/xml-query.ts';
import { readXml, type XmlElement } from '../../protocol/xml/read-xml.ts';

export interface SpecBlock {
  readonly caption: string;
  /** The block's character content exactly (CDATA included), after XML line-end normalization. */
  readonly text: string;
  /** Anchor of the nearest enclosing section1..section4, or null outside any section. */
  readonly anchor: string | null;
  /** Spec line holding the first character of `text`: block line n is spec line `line + n - 1`. */
  readonly line: number;
}

export interface SpecContents {
  /** The newest <revision><version>, for the report header. */
  readonly version: string | null;
  readonly codeBlocks: readonly SpecBlock[];
  readonly examples: readonly SpecBlock[];
}

const SECTION = /^section[1-4]$/;

export function extractSpec(specText: string): SpecContents {
  const document = readXml(specText, 'spec');
  const codeBlocks: SpecBlock[] = [];
  const examples: SpecBlock[] = [];
  let version: string | null = null;
  for (const element of walk(document.root)) {
    if (element.namespace !== null) continue;
    if (element.localName === 'version' && element.parent?.localName === 'revision') {
      version ??= textContent(element).trim();
    }
    if (element.localName !== 'code' && element.localName !== 'example') continue;
    const firstText = element.children.find((child) => child.kind === 'text');
    const block: SpecBlock = {
      caption: attributeValue(element, 'caption') ?? '',
      text: textContent(element),
      anchor: nearestAnchor(element),
      line: document.lineOf(firstText?.valueStart ?? element.start),
    };
    (element.localName === 'code' ? codeBlocks : examples).push(block);
  }
  return { version, codeBlocks, examples };
}

function nearestAnchor(element: XmlElement): string | null {
  for (let node = element.parent; node !== null; node = node.parent) {
    if (node.namespace === null && SECTION.test(node.localName)) {
      const anchor = attributeValue(node, 'anchor');
      if (anchor !== undefined) return anchor;
    }
  }
  return null;
}

/** All code blocks with exactly this caption (callers decide what zero or several mean). */
export function codeBlocksCaptioned(spec: SpecContents, caption: string): SpecBlock[] {
  return spec.codeBlocks.filter((block) => block.caption === caption);
}
