/**
 * Discovery node codec for tool collections and tools (#namespaces, #list-tools, #tool-info).
 * A tool node carries the tool name as unpadded base64url of its UTF-8 bytes; decoding is
 * strict so that one tool has exactly one node string (interp-22).
 */
import { isApiVersion, toolNameViolation } from './identifiers.ts';
import { NODE_BASE_TOOL, NODE_BASE_TOOL_COLLECTION } from './namespaces.ts';

export type ToolNodeRule =
  | 'not-a-tool-node'
  | 'not-a-collection-node'
  | 'invalid-version'
  | 'empty-name'
  | 'base64url-alphabet'
  | 'base64url-padding'
  | 'base64url-length'
  | 'base64url-noncanonical'
  | 'invalid-utf8'
  | 'illegal-tool-name';

export class ToolNodeError extends Error {
  override readonly name = 'ToolNodeError';
  constructor(
    readonly rule: ToolNodeRule,
    readonly node: string,
    detail: string,
  ) {
    super(`${detail} (rule ${rule}) in node ${JSON.stringify(node.slice(0, 160))}`);
  }
}

export interface ToolNode {
  readonly version: string;
  readonly toolName: string;
}

const COLLECTION_PREFIX = `${NODE_BASE_TOOL_COLLECTION}#`;
const TOOL_PREFIX = `${NODE_BASE_TOOL}#`;
const BASE64URL_ALPHABET = /^[A-Za-z0-9_-]*$/;
const utf8Strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

function requireVersion(version: string, node: string): void {
  if (!isApiVersion(version)) {
    throw new ToolNodeError(
      'invalid-version',
      node,
      `API version ${JSON.stringify(version)} is not [A-Za-z0-9._~-]{1,64}`,
    );
  }
}

function requireLegalName(name: string, node: string): void {
  const violation = toolNameViolation(name);
  if (violation === 'empty') throw new ToolNodeError('empty-name', node, 'tool name is empty');
  if (violation !== undefined) {
    throw new ToolNodeError('illegal-tool-name', node, `tool name is not legal: ${violation}`);
  }
}

export function encodeCollectionNode(version: string): string {
  requireVersion(version, COLLECTION_PREFIX + version);
  return COLLECTION_PREFIX + version;
}

export function decodeCollectionNode(node: string): string {
  if (!node.startsWith(COLLECTION_PREFIX)) {
    throw new ToolNodeError('not-a-collection-node', node, `node does not start with ${COLLECTION_PREFIX}`);
  }
  const version = node.slice(COLLECTION_PREFIX.length);
  requireVersion(version, node);
  return version;
}

export function encodeToolNode(version: string, toolName: string): string {
  const node = `${TOOL_PREFIX}${version}#${Buffer.from(toolName, 'utf8').toString('base64url')}`;
  requireVersion(version, node);
  requireLegalName(toolName, node);
  return node;
}

export function decodeToolNode(node: string): ToolNode {
  if (!node.startsWith(TOOL_PREFIX)) {
    throw new ToolNodeError('not-a-tool-node', node, `node does not start with ${TOOL_PREFIX}`);
  }
  const rest = node.slice(TOOL_PREFIX.length);
  const separator = rest.indexOf('#');
  if (separator < 0) throw new ToolNodeError('not-a-tool-node', node, 'no "#" between version and name');
  const version = rest.slice(0, separator);
  const encodedName = rest.slice(separator + 1);
  requireVersion(version, node);
  if (encodedName.length === 0) throw new ToolNodeError('empty-name', node, 'encoded tool name is empty');
  if (encodedName.includes('=')) {
    throw new ToolNodeError('base64url-padding', node, 'base64url name must be unpadded');
  }
  if (!BASE64URL_ALPHABET.test(encodedName)) {
    throw new ToolNodeError(
      'base64url-alphabet',
      node,
      'name uses characters outside the base64url alphabet',
    );
  }
  if (encodedName.length % 4 === 1) {
    throw new ToolNodeError('base64url-length', node, 'base64url length leaves a dangling character');
  }
  const bytes = Buffer.from(encodedName, 'base64url');
  // Node's decoder ignores non-zero trailing bits; re-encoding exposes any alias of the bytes.
  if (bytes.toString('base64url') !== encodedName) {
    throw new ToolNodeError(
      'base64url-noncanonical',
      node,
      'base64url encoding is not canonical (trailing bits)',
    );
  }
  let toolName: string;
  try {
    toolName = utf8Strict.decode(bytes);
  } catch {
    throw new ToolNodeError('invalid-utf8', node, 'decoded tool name is not valid UTF-8');
  }
  requireLegalName(toolName, node);
  return { version, toolName };
}
