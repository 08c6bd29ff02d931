/**
 * Markdown pieces the conformance statement's gateway and caller sections share: escaping that
 * keeps report text from turning into markup, fences that transcripts cannot close, and the
 * block a case that did not pass ends with (the violated requirement with expected vs received,
 * or the reason it could not be decided).
 */

/** A fence longer than any backtick run inside, so transcripts cannot close their code block. */
export function codeBlock(text: string, language = ''): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((match) => match[0].length));
  const fence = '`'.repeat(longest + 1);
  return `${fence}${language}\n${text}\n${fence}`;
}

/** Inline code that survives backticks in the content. */
export function code(text: string): string {
  const fence = text.includes('`') ? '``' : '`';
  return `${fence}${fence === '``' ? ' ' : ''}${text}${fence === '``' ? ' ' : ''}${fence}`;
}

/** Markdown inline text: characters that would start markup or break a table cell are escaped. */
export function inline(text: string): string {
  return text.replace(/[\\`*_[\]<>|#]/g, (char) => `\\${char}`).replace(/\s*\n\s*/g, ' ');
}

export interface VerdictFacts {
  readonly violation?: { readonly requirement: string; readonly expected: string; readonly received: string };
  readonly reason?: string;
}

/** What a case that did not pass met: the violation with expected vs received, else its reason. */
export function verdictLines(facts: VerdictFacts): string[] {
  if (facts.violation !== undefined) {
    return [
      `- Violated: ${code(facts.violation.requirement)}`,
      '',
      'Expected:',
      '',
      codeBlock(facts.violation.expected),
      '',
      'Received:',
      '',
      codeBlock(facts.violation.received),
    ];
  }
  return facts.reason === undefined ? [] : [`- Reason: ${inline(facts.reason)}`];
}
