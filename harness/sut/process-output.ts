/** A gateway's own output as the harness shows and keeps it: as text, without terminal escapes. */

/** Lines of the gateway's own output shown with a failure. */
const SHOWN_OUTPUT_LINES = 30;

// ECMA-48 CSI and OSC sequences: colours and titles a gateway writes for a terminal.
const ANSI_ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

/** Terminal escape sequences removed, so kept or printed output reads as text. */
export function stripTerminalEscapes(text: string): string {
  return text.replace(ANSI_ESCAPES, '');
}

/** The last lines of a process's output, cleaned, indented; "(no output)" when there is none. */
export function outputTail(output: string, lines = SHOWN_OUTPUT_LINES): string {
  const kept = stripTerminalEscapes(output).trimEnd().split('\n').slice(-lines);
  if (kept.length === 0 || (kept.length === 1 && kept[0] === '')) return '    (no output)';
  return kept.map((line) => `    ${line}`).join('\n');
}
