/**
 * The text a reader has read and still needs, kept as the pieces it came in: appending never
 * copies, so a long element read in many small runs costs linear time (one string grown by `+=`
 * is flattened again by every search, which made reading quadratic).
 */
export class TextWindow {
  #pieces: string[] = [];
  /** Offset of each piece's first character. */
  #starts: number[] = [];
  #start = 0;
  #end = 0;

  /** Offset of the oldest character kept. */
  get start(): number {
    return this.#start;
  }

  /** Offset just past the last character read. */
  get end(): number {
    return this.#end;
  }

  append(text: string): void {
    if (text === '') return;
    this.#pieces.push(text);
    this.#starts.push(this.#end);
    this.#end += text.length;
  }

  /** The text between two offsets (clamped to what is kept). */
  slice(from: number, to: number): string {
    const parts: string[] = [];
    for (let index = this.#pieceAt(from); index < this.#pieces.length; index += 1) {
      const pieceStart = this.#starts[index] ?? 0;
      if (pieceStart >= to) break;
      parts.push((this.#pieces[index] ?? '').slice(Math.max(0, from - pieceStart), to - pieceStart));
    }
    return parts.join('');
  }

  /** Offset of the first `character` at or after `from`, or -1. */
  indexOf(character: string, from: number): number {
    for (let index = this.#pieceAt(from); index < this.#pieces.length; index += 1) {
      const pieceStart = this.#starts[index] ?? 0;
      const found = (this.#pieces[index] ?? '').indexOf(character, Math.max(0, from - pieceStart));
      if (found !== -1) return pieceStart + found;
    }
    return -1;
  }

  /** Forgets the text before `offset`. */
  discardBefore(offset: number): void {
    if (offset <= this.#start) return;
    const index = this.#pieceAt(offset);
    this.#pieces = this.#pieces.slice(index);
    this.#starts = this.#starts.slice(index);
    const first = this.#pieces[0];
    const firstStart = this.#starts[0];
    if (first !== undefined && firstStart !== undefined && firstStart < offset) {
      this.#pieces[0] = first.slice(offset - firstStart);
      this.#starts[0] = offset;
    }
    this.#start = Math.min(offset, this.#end);
  }

  /** Index of the piece holding `offset` (0 before the first). */
  #pieceAt(offset: number): number {
    let low = 0;
    let high = this.#starts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((this.#starts[mid] ?? 0) <= offset) low = mid;
      else high = mid - 1;
    }
    return Math.max(0, low);
  }
}
