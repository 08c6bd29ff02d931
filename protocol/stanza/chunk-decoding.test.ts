import { client } from '@xmpp/client';
import componentPackage from '@xmpp/component';
import { describe, expect, it } from 'vitest';
import { decodeUtf8AcrossChunks } from './chunk-decoding.ts';

// Never connected: the entities only lend their connection class (@xmpp/connection 0.14 for the
// client, 0.13 for the component, which both read chunks the same way).
const ENTITIES = {
  client: () => client({ service: 'xmpp://127.0.0.1:9', domain: 'example.org' }),
  component: () =>
    componentPackage.component({ service: 'xmpp://127.0.0.1:9', domain: 'c.example.org', password: 'x' }),
};

/** A real connection whose parser records what it is given. */
function connectionWithRecorder(kind: keyof typeof ENTITIES = 'component'): {
  connection: object;
  written: string[];
  onData: (chunk: Buffer) => void;
} {
  const written: string[] = [];
  const connection = ENTITIES[kind]();
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
  it.each(Object.keys(ENTITIES) as (keyof typeof ENTITIES)[])(
    "shows the %s library's own decoding corrupting a character split across chunks",
    (kind) => {
      const { written, onData } = connectionWithRecorder(kind);
      const bytes = Buffer.from(TEXT, 'utf8');
      const inside = bytes.indexOf(Buffer.from('🦜', 'utf8')) + 2;
      onData(bytes.subarray(0, inside));
      onData(bytes.subarray(inside));
      expect(written.join('')).not.toBe(TEXT);
    },
  );

  it.each(Object.keys(ENTITIES) as (keyof typeof ENTITIES)[])(
    'gives the %s parser the exact text at every cut, including inside 2-, 3- and 4-byte characters',
    (kind) => {
      const bytes = Buffer.from(TEXT, 'utf8');
      for (let cut = 0; cut <= bytes.length; cut += 1) {
        const { connection, written, onData } = connectionWithRecorder(kind);
        decodeUtf8AcrossChunks(connection);
        onData(bytes.subarray(0, cut));
        onData(bytes.subarray(cut));
        expect(written.join(''), `cut at byte ${String(cut)}`).toBe(TEXT);
      }
    },
  );

  it('starts a fresh decoder for a new socket (a reconnection starts on a character boundary)', () => {
    const { connection, written, onData } = connectionWithRecorder();
    decodeUtf8AcrossChunks(connection);
    onData(Buffer.from('🦜', 'utf8').subarray(0, 2));
    (connection as { socket: unknown }).socket = {};
    onData(Buffer.from('<a/>', 'utf8'));
    expect(written.join('')).toBe('<a/>');
  });

  it("announces the text read as 'input' (the gateway's keepalive listens to it)", () => {
    const { connection, onData } = connectionWithRecorder();
    decodeUtf8AcrossChunks(connection);
    const inputs: string[] = [];
    (connection as { on(event: string, listener: (text: string) => void): void }).on('input', (text) => {
      inputs.push(text);
    });
    const parrot = Buffer.from('<a>🦜</a>', 'utf8');
    onData(parrot.subarray(0, 5));
    onData(parrot.subarray(5));
    expect(inputs).toEqual(['<a>', '🦜</a>']);
  });

  it('refuses a connection without _onData (a library change must be reviewed, not ignored)', () => {
    expect(() => {
      decodeUtf8AcrossChunks({});
    }).toThrow(/_onData/);
  });
});
