/**
 * MCP tools/list pagination, kept apart from XMPP's RSM (#mcp-mapping: the directory RSM cursor
 * is not an MCP tool-list cursor). The bridge walks RSM to the end while pinning; MCP clients
 * page through the bridge's own list with opaque cursors of the bridge's own making. Pure.
 */
const CURSOR_PREFIX = 'mcp-tools:';

export class InvalidCursor extends Error {
  override readonly name = 'InvalidCursor';
}

export interface ToolPage<T> {
  readonly items: readonly T[];
  readonly nextCursor?: string;
}

function encodeCursor(offset: number): string {
  return Buffer.from(`${CURSOR_PREFIX}${String(offset)}`, 'utf8').toString('base64url');
}

function decodeCursor(cursor: string): number {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const offset = text.startsWith(CURSOR_PREFIX) ? text.slice(CURSOR_PREFIX.length) : '';
  if (!/^(0|[1-9][0-9]{0,8})$/.test(offset) || encodeCursor(Number(offset)) !== cursor) {
    throw new InvalidCursor('not a cursor this bridge handed out');
  }
  return Number(offset);
}

/** The page that starts at `cursor` (the first page without one). */
export function toolPage<T>(items: readonly T[], cursor: string | undefined, pageSize: number): ToolPage<T> {
  const start = cursor === undefined ? 0 : decodeCursor(cursor);
  if (start > items.length) throw new InvalidCursor('the cursor is past the end of the list');
  const end = start + pageSize;
  return end < items.length
    ? { items: items.slice(start, end), nextCursor: encodeCursor(end) }
    : { items: items.slice(start) };
}
