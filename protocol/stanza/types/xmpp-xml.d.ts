/**
 * The subset of @xmpp/xml 0.14 (ltx 3 Element) that this project uses. The package ships no
 * types. `attrs` is a plain object: read it with an own-property check (see element-access.ts)
 * so that names such as "constructor" never resolve through the prototype.
 *
 * Why not @types/xmpp__xml 0.14.0: it has no named `xml` export, which @xmpp/xml 0.14.0 has and
 * every stanza builder imports; its xml() takes only Element or string children, while ltx
 * flattens arrays and drops null, undefined and booleans (conditional children); and it types
 * `attrs` and getAttr() as `any`, which the type-checked lint rejects at each attribute read and
 * which would lose the check that an attribute is a string.
 */
declare module '@xmpp/xml' {
  export type Node = Element | string;

  export class Element {
    constructor(name: string, attrs?: Record<string, string> | string);
    name: string;
    parent: Element | null;
    children: Node[];
    attrs: Record<string, string | undefined>;
    is(name: string, xmlns?: string): boolean;
    getName(): string;
    getNS(): string | undefined;
    getAttr(name: string, xmlns?: string): string | undefined | null;
    getChild(name: string, xmlns?: string): Element | undefined;
    getChildren(name: string, xmlns?: string): Element[];
    getChildElements(): Element[];
    getText(): string;
    getChildText(name: string, xmlns?: string): string | null;
    c(name: string, attrs?: Record<string, string>): Element;
    cnode<T extends Node>(child: T): T;
    append(...nodes: Node[]): void;
    prepend(...nodes: Node[]): void;
    t(text: string): this;
    up(): Element;
    root(): Element;
    remove(el: Element | string, xmlns?: string): this;
    toString(): string;
  }

  export type XmlChild = Node | readonly XmlChild[] | null | undefined | boolean;

  /** Attribute values are stringified; null and undefined values are dropped. */
  export function xml(
    name: string,
    attrs?: Readonly<Record<string, string | number | null | undefined>> | string | null,
    ...children: XmlChild[]
  ): Element;

  /** A streaming parser: 'start' (the stream header), 'element' (each top-level child), 'end'. */
  export class Parser {
    write(data: string): void;
    on(event: 'start' | 'element' | 'end', listener: (element: Element) => void): this;
    on(event: 'error', listener: (error: Error) => void): this;
  }

  export function escapeXML(s: string): string;
  export function escapeXMLText(s: string): string;

  export default xml;
}
