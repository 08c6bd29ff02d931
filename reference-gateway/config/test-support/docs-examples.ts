/** The JSON examples of docs/gateway-config.md, so tests keep the documentation honest. */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { JsonValue } from '../../../protocol/json/json-value.ts';
import { parseStrictJson } from '../../../protocol/json/strict-json.ts';
import { REPO_ROOT } from '../../../protocol/test-support/shared-paths.ts';

export const DOCS_DIR = resolve(REPO_ROOT, 'docs');

/** The JSON block that follows `<!-- example: NAME -->` in docs/gateway-config.md. */
export function docsExample(name: string): JsonValue {
  const text = readFileSync(resolve(DOCS_DIR, 'gateway-config.md'), 'utf8');
  const match = new RegExp(`<!-- example: ${name} -->\\s*\`\`\`json\\n([\\s\\S]*?)\\n\`\`\``).exec(text);
  if (match?.[1] === undefined) throw new Error(`no example ${name} in docs/gateway-config.md`);
  return parseStrictJson(match[1]);
}
