/** Child lookups the report tests use to walk a parsed junit.xml. */
import type { Element } from '@xmpp/xml';
import { childElementsOf, localNameOf } from '../../../protocol/stanza/index.ts';

export function childrenNamed(element: Element, name: string): Element[] {
  return childElementsOf(element).filter((child) => localNameOf(child) === name);
}

/** The one child called `name`; throws when there is none or more than one. */
export function onlyChild(element: Element, name: string): Element {
  const [first, ...rest] = childrenNamed(element, name);
  if (first === undefined || rest.length > 0) throw new Error(`expected exactly one <${name}/>`);
  return first;
}
