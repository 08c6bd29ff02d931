/** A Lua string literal; anything outside printable ASCII is written as a decimal escape. */
export function luaString(value: string): string {
  const escaped = value.replace(/[^ -~]|["\\]/g, (c) =>
    c === '"' || c === '\\' ? `\\${c}` : Array.from(Buffer.from(c), (byte) => `\\${byte}`).join(''),
  );
  return `"${escaped}"`;
}
