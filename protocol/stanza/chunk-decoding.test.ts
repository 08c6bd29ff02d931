import { client } from '@xmpp/client';
import { describe, expect, it } from 'vitest';
import { decodeUtf8AcrossChunks } from './chunk-decoding.ts';

/** A real client connection (never connected) whose parser records what it is given. */
function connectionWithRecorder(): {
  connection: object;
  written: string[];
  onData: (chunk: Buffer) => void;
} {
  const written: string[] = [];
  const connection = client({ service: 'xmpp://127.0.0.1:9', domain: 'example.org' });
  const raw = connection as unknown as { parser: unknown; socket: unknown; _onData(chunk: Buffer): void };
  raw.parser = { write: (text: string) => written.push(text) };
  raw.socket = {};
  return {
    connection,
    written,
    onData: (chunk) => {
      raw._onData(chunk);
    },
  };
}

const TEXT = '<message><body>{"q":"Zoë 🦜 日本"}</body></message>';

describe('decodeUtf8AcrossChunks', () => {
  it("shows the library's own decoding corrupting a character split across chunks", () => {
    const { written, onData } = connectionWithRecorder();
    const bytes = Buffer.from(TEXT, 'utf8');
    const inside = bytes.indexOf(Buffer.from('🦜', 'utf8')) + 2;
    onData(bytes.subarray(0, inside));
    onData(bytes.subarray(inside));
    expect(written.join('')).not.toBe(TEXT);
  });

  it('gives the parser the exact text at every cut, including inside 2-, 3- and 4-byte characters', () => {
    const bytes = Buffer.from(TEXT, 'utf8');
    for (let cut = 0; cut <= bytes.length; cut += 1) {
      const { connection, written, onData } = connectionWithRecorder();
      decodeUtf8AcrossChunks(connection);
      onData(bytes.subarray(0, cut));
      onData(bytes.subarray(cut));
      expect(written.join(''), `cut at byte ${String(cut)}`).toBe(TEXT);
    }
  });

  it('starts a fresh decoder for a new socket (a reconnection starts on a character boundary)', () => {
    const { connection, written, onData } = connectionWithRecorder();
    decodeUtf8AcrossChunks(connection);
    onData(Buffer.from('🦜', 'utf8').subarray(0, 2));
    (connection as { socket: unknown }).socket = {};
    onData(Buffer.from('<a/>', 'utf8'));
    expect(written.join('')).toBe('<a/>');
  });

  it('refuses a connection without _onData (a library change must be reviewed, not ignored)', () => {
    expect(() => {
      decodeUtf8AcrossChunks({});
    }).toThrow(/_onData/);
  });
});
