import { describe, expect, it } from 'vitest';
import { describeDifference, firstDifference, normalizeArtifactText } from './artifact-text.ts';

describe('artifact whitespace normalization', () => {
  it('ignores BOM, line-end style, trailing blanks per line and blank lines at either end', () => {
    const spec = '\n<a>\n  <b/>\n\n</a>\n';
    const committed = '\uFEFF\r\n\r\n<a>  \r\n  <b/>\t\r\n\r\n</a>\r\n\r\n\r\n';
    expect(normalizeArtifactText(committed)).toBe('<a>\n  <b/>\n\n</a>');
    expect(firstDifference(spec, committed)).toBeUndefined();
  });

  it('keeps indentation, inner blank lines and in-line whitespace significant', () => {
    expect(firstDifference('<a>\n  <b/>\n</a>', '<a>\n    <b/>\n</a>')).toEqual({
      line: 2,
      expected: '  <b/>',
      actual: '    <b/>',
    });
    expect(firstDifference('a\nb', 'a\n\nb')).toMatchObject({ line: 2, expected: 'b', actual: '' });
    expect(firstDifference('{"a": 1}', '{"a":1}')).toMatchObject({ line: 1 });
  });

  it('reports a text that ends early and renders short single-line descriptions', () => {
    const difference = firstDifference('a\nb\nc', 'a\nb');
    expect(difference).toEqual({ line: 3, expected: 'c', actual: undefined });
    if (difference === undefined) throw new Error('expected a difference');
    expect(describeDifference(difference)).toBe(
      'first difference at normalized line 3: spec has "c", file has (end of text)',
    );
    const long = describeDifference({ line: 1, expected: 'x'.repeat(300), actual: 'y' });
    expect(long.length).toBeLessThan(200);
  });
});
