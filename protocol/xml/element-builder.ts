/** Builds @xmpp/xml (ltx) Elements from the core's events, in the text model the codecs read. */
import { Element } from '@xmpp/xml';
import type { SaxesTagNS } from 'saxes';

/**
 * Character data and references between two pieces of markup form one text child; each CDATA
 * section is a text child of its own (so consumers concatenate: #json-encoding). Attributes are
 * set as own properties, so that one named `__proto__` stays an attribute.
 */
export class ElementBuilder {
  readonly #open: Element[] = [];

  get depth(): number {
    return this.#open.length;
  }

  /** Opens an element (a child of the open one, if any); returns it. */
  open(tag: SaxesTagNS): Element {
    const element = new Element(tag.name);
    for (const { name, value } of Object.values(tag.attributes)) {
      Object.defineProperty(element.attrs, name, {
        value,
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    this.#open.at(-1)?.cnode(element);
    this.#open.push(element);
    return element;
  }

  /** Text inside the open element; text outside every element is not kept. */
  text(value: string): void {
    if (value !== '') this.#open.at(-1)?.t(value);
  }

  /** Closes the open element; returns it when it was the outermost one. */
  close(): Element | undefined {
    const element = this.#open.pop();
    return this.#open.length === 0 ? element : undefined;
  }
}
