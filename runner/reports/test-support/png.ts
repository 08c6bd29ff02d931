/**
 * Just enough of PNG (RFC 2083) to look at a Chromium screenshot's pixels in a test: 8-bit
 * RGB or RGBA, not interlaced, inflated with node:zlib and unfiltered scanline by scanline.
 * Anything else is refused rather than misread.
 */
import { inflateSync } from 'node:zlib';

export interface DecodedPng {
  readonly width: number;
  readonly height: number;
  /** RGBA, row by row. */
  readonly rgba: Uint8Array;
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

function paeth(a: number, b: number, c: number): number {
  const p = a + b - c;
  const pa = Math.abs(p - a);
  const pb = Math.abs(p - b);
  const pc = Math.abs(p - c);
  if (pa <= pb && pa <= pc) return a;
  return pb <= pc ? b : c;
}

export function decodePng(file: Buffer): DecodedPng {
  if (!file.subarray(0, 8).equals(SIGNATURE)) throw new Error('not a PNG file');
  let offset = 8;
  let width = 0;
  let height = 0;
  let channels = 0;
  const idat: Buffer[] = [];
  while (offset + 8 <= file.length) {
    const length = file.readUInt32BE(offset);
    const type = file.toString('latin1', offset + 4, offset + 8);
    const data = file.subarray(offset + 8, offset + 8 + length);
    offset += 12 + length;
    if (type === 'IHDR') {
      width = data.readUInt32BE(0);
      height = data.readUInt32BE(4);
      const [bitDepth, colourType, , , interlace] = [data[8], data[9], data[10], data[11], data[12]];
      if (bitDepth !== 8 || interlace !== 0 || (colourType !== 2 && colourType !== 6)) {
        throw new Error(
          `unsupported PNG: bit depth ${String(bitDepth)}, colour type ${String(colourType)}, interlace ${String(interlace)}`,
        );
      }
      channels = colourType === 6 ? 4 : 3;
    } else if (type === 'IDAT') {
      idat.push(data);
    } else if (type === 'IEND') {
      break;
    }
  }
  if (channels === 0) throw new Error('PNG without IHDR');
  const raw = inflateSync(Buffer.concat(idat));
  const stride = width * channels;
  if (raw.length < height * (stride + 1)) throw new Error('PNG image data is truncated');
  const current = new Uint8Array(stride);
  let previous = new Uint8Array(stride);
  const rgba = new Uint8Array(width * height * 4);
  for (let y = 0; y < height; y++) {
    const rowStart = y * (stride + 1);
    const filter = raw[rowStart];
    for (let x = 0; x < stride; x++) {
      const byte = raw[rowStart + 1 + x] ?? 0;
      const left = x >= channels ? (current[x - channels] ?? 0) : 0;
      const up = previous[x] ?? 0;
      const upLeft = x >= channels ? (previous[x - channels] ?? 0) : 0;
      let value: number;
      switch (filter) {
        case 0:
          value = byte;
          break;
        case 1:
          value = byte + left;
          break;
        case 2:
          value = byte + up;
          break;
        case 3:
          value = byte + Math.floor((left + up) / 2);
          break;
        case 4:
          value = byte + paeth(left, up, upLeft);
          break;
        default:
          throw new Error(`unknown PNG filter ${String(filter)} on row ${String(y)}`);
      }
      current[x] = value & 0xff;
    }
    for (let x = 0; x < width; x++) {
      const target = (y * width + x) * 4;
      rgba[target] = current[x * channels] ?? 0;
      rgba[target + 1] = current[x * channels + 1] ?? 0;
      rgba[target + 2] = current[x * channels + 2] ?? 0;
      rgba[target + 3] = channels === 4 ? (current[x * channels + 3] ?? 0) : 255;
    }
    previous = Uint8Array.from(current);
  }
  return { width, height, rgba };
}

/** Pixels per colour ("#rrggbb"), alpha ignored. */
export function colourHistogram(png: DecodedPng): Map<string, number> {
  const histogram = new Map<string, number>();
  for (let i = 0; i < png.rgba.length; i += 4) {
    const hex = `#${[png.rgba[i], png.rgba[i + 1], png.rgba[i + 2]]
      .map((channel) => (channel ?? 0).toString(16).padStart(2, '0'))
      .join('')}`;
    histogram.set(hex, (histogram.get(hex) ?? 0) + 1);
  }
  return histogram;
}
