/**
 * @xmpp/connection decodes each TCP chunk on its own (`data.toString('utf8')` in `_onData`), so a
 * character whose UTF-8 bytes straddle two chunks reaches the XML parser as replacement
 * characters: non-ASCII JSON arguments, search terms or JIDs change in transit whenever a chunk
 * happens to end inside one. That corrupts what the harness's callers read, so every client
 * connection the harness opens decodes with one StringDecoder per socket instead (a reconnection
 * starts a fresh one: its stream starts on a character boundary). Component links need none of
 * this: protocol/component-link reads bytes with the XML reader, which decodes across reads.
 */
import { StringDecoder } from 'node:string_decoder';

/** The part of an @xmpp/connection Connection this module replaces. */
interface ChunkDecodingConnection {
  socket: object | null;
  parser: { write(text: string): void } | null;
  _onData(data: Buffer): void;
}

/**
 * Installs the decoding on a client connection before it first connects: the library binds
 * `_onData` to the socket when it attaches the first one.
 */
export function decodeUtf8AcrossChunks(connection: object): void {
  const target = connection as ChunkDecodingConnection;
  if (typeof target._onData !== 'function') {
    // A newer @xmpp/connection: fail loudly rather than run with chunk-by-chunk decoding.
    throw new Error('@xmpp/connection no longer has _onData: review protocol/stanza/chunk-decoding.ts');
  }
  const decoders = new WeakMap<object, StringDecoder>();
  target._onData = (data: Buffer): void => {
    const socket = target.socket ?? target;
    let decoder = decoders.get(socket);
    if (decoder === undefined) {
      decoder = new StringDecoder('utf8');
      decoders.set(socket, decoder);
    }
    const text = decoder.write(data);
    if (text === '') return;
    target.parser?.write(text);
  };
}
