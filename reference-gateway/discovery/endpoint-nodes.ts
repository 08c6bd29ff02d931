/**
 * The disco nodes an endpoint JID answers for (#endpoint-info, #list-tools, #tool-info).
 * Classification looks only at the node string, before any catalog lookup, so a malformed
 * node and a well-formed node naming nothing visible end in the same item-not-found.
 */
import { FEATURE } from '../../protocol/namespaces.ts';
import { ToolNodeError, decodeCollectionNode, decodeToolNode } from '../../protocol/tool-node.ts';

export type EndpointNode =
  /** No node: the endpoint itself. */
  | { readonly kind: 'endpoint' }
  /** urn:xmpp:agent-tools:0#VERSION */
  | { readonly kind: 'collection'; readonly version: string }
  /** urn:xmpp:agent-tool:0#VERSION#NAME */
  | { readonly kind: 'tool'; readonly version: string; readonly toolName: string }
  /**
   * Anything else, including urn:xmpp:agent-endpoint:0 (a feature var, never a node:
   * #endpoint-info) and malformed collection or tool nodes (interp-22).
   */
  | { readonly kind: 'none' };

const NONE: EndpointNode = { kind: 'none' };

function decodeOrNone<T>(decode: () => T): T | undefined {
  try {
    return decode();
  } catch (error) {
    if (error instanceof ToolNodeError) return undefined;
    throw error;
  }
}

export function classifyEndpointNode(node: string | undefined): EndpointNode {
  if (node === undefined) return { kind: 'endpoint' };
  // endpoint-info.feature-var-not-node
  if (node === FEATURE.endpoint) return NONE;
  // namespaces.tool-node-decoding: the protocol codec decodes strictly; whatever it refuses names
  // no node here.
  const version = decodeOrNone(() => decodeCollectionNode(node));
  if (version !== undefined) return { kind: 'collection', version };
  const tool = decodeOrNone(() => decodeToolNode(node));
  if (tool !== undefined) return { kind: 'tool', version: tool.version, toolName: tool.toolName };
  return NONE;
}
