/**
 * Raw bytes on the component link (issue 14, item 5; scenario `bad-input`): input an XMPP server
 * would never forward to a component, written to the gateway by the harness's fault proxy as
 * though its server had sent it (SutControl.link.inject), so only for a gateway the harness
 * launches behind its own proxy. Used by #security (restricted XML) and #json-encoding
 * (CDATA-split arguments).
 */
import type { CaseContext, ComponentLinkControl } from '../../framework/context.ts';
import { CannotTell } from '../../framework/verdicts.ts';
import { harnessFederationOnly } from './harness-federation-only.ts';

export const HARNESS_FEDERATION_ONLY = harnessFederationOnly("the fault proxies on the gateway's links");
export const LOWER = 'abcdefghijklmnopqrstuvwxyz';

export function link(context: CaseContext): ComponentLinkControl {
  const control = context.sutControl?.link;
  if (control === undefined) throw new CannotTell(HARNESS_FEDERATION_ONLY);
  return control;
}
