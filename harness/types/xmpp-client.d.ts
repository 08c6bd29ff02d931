/**
 * The subset of @xmpp/client 0.14 that the harness uses; the package ships no types. Elements
 * are @xmpp/xml (ltx) elements. (Components speak over protocol/component-link, not a library.)
 *
 * Why not DefinitelyTyped: @types/xmpp__client 0.14.1 declares the public client only. The
 * harness reaches into the connection's transport list (a direct-TLS transport with the run's CA
 * goes first) and its SASL factory (native SCRAM), which it leaves out, and it depends on
 * @types/xmpp__xml, which does not fit (see protocol/stanza/types/xmpp-xml.d.ts). Checked
 * against the installed 0.14.0.
 */
declare module '@xmpp/client' {
  import type { Element } from '@xmpp/xml';
  import type { EventEmitter } from 'node:events';

  export interface Jid {
    toString(): string;
    bare(): Jid;
    local: string;
    domain: string;
    resource: string;
  }

  /** The socket wrapper a transport connects with (for TLS: `socket` is the tls.TLSSocket). */
  export interface TransportSocket {
    socket: import('node:net').Socket | null;
    connect(options: Record<string, unknown>): void;
  }

  export type TransportSocketClass = new (...args: any[]) => TransportSocket;

  export interface Transport {
    /** Maps a service URI to the options of its Socket#connect (undefined: not this transport's scheme). */
    socketParameters(service: string): Record<string, unknown> | undefined;
    Socket: TransportSocketClass;
  }

  /** Transports are looked up per client in `transports`, first match wins. */
  export type TransportClass = new (...args: any[]) => Transport;

  export interface ClientOptions {
    service: string;
    domain?: string;
    username?: string;
    password?: string;
    resource?: string;
    timeout?: number;
  }

  /** What iqCaller.request rejects with when the reply is an error. */
  export interface StanzaError extends Error {
    name: 'StanzaError';
    condition: string;
    text: string;
    type: string | undefined;
    element: Element;
  }

  export interface XmppClient extends EventEmitter {
    readonly jid: Jid | null;
    readonly status: string;
    readonly transports: TransportClass[];
    timeout: number;
    readonly iqCaller: { request(stanza: Element, timeoutMs?: number): Promise<Element> };
    readonly reconnect: { stop(): void; delay: number };
    /** saslmechanisms' factory: `create` takes the first registered mechanism the server offers. */
    readonly saslFactory: { _mechs: { name: string; mech: unknown }[] };
    start(): Promise<Jid>;
    /** start() is connect(service) then open(), then waiting for 'online'. */
    connect(service: string): Promise<void>;
    open(options: { domain: string; lang?: string }): Promise<Element>;
    stop(): Promise<void>;
    send(element: Element): Promise<void>;
    /** True once the stream runs over TLS (direct, or after STARTTLS). */
    isSecure(): boolean;
  }

  export function client(options: ClientOptions): XmppClient;
  export { xml } from '@xmpp/xml';
}
