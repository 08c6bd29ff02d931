/**
 * The one numbering of the spec review's points (docs/interpretations.md): `interp-NN`, the
 * same number as the review's, two digits.
 */
export function interpretationId(position: number): string {
  return `interp-${String(position).padStart(2, '0')}`;
}
