/**
 * The subset of @xmpp/client 0.14 and @xmpp/component 0.13 that the harness uses; neither
 * package ships types. Elements are @xmpp/xml (ltx) elements; @xmpp/component brings its own
 * copy of @xmpp/xml, with the same shape.
 *
 * Why not DefinitelyTyped: no @types/xmpp__component exists, and @types/xmpp__client 0.14.1
 * declares the public client only. The harness reaches into the connection's transport list
 * (a direct-TLS transport with the run's CA goes first) and its SASL factory (native SCRAM),
 * which it leaves out, and it depends on @types/xmpp__xml, which does not fit (see
 * protocol/stanza/types/xmpp-xml.d.ts). Checked against the installed 0.14.0.
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
  }

  export function client(options: ClientOptions): XmppClient;
  export { xml } from '@xmpp/xml';
}

declare module '@xmpp/component' {
  import type { Element } from '@xmpp/xml';
  import type { EventEmitter } from 'node:events';

  export interface IncomingContext {
    readonly stanza: Element;
    /** For IQs: the single child of the query. */
    readonly element: Element | undefined;
    readonly type: string | undefined;
    readonly name: string;
  }

  type Next = () => Promise<unknown>;

  export interface XmppComponent extends EventEmitter {
    readonly status: string;
    readonly middleware: {
      use(handler: (context: IncomingContext, next: Next) => unknown): void;
    };
    readonly reconnect: { stop(): void; delay: number };
    start(): Promise<unknown>;
    stop(): Promise<void>;
    send(element: Element): Promise<void>;
  }

  interface ComponentModule {
    component(options: { service: string; domain: string; password: string }): XmppComponent;
    xml: typeof import('@xmpp/xml').xml;
  }

  const module: ComponentModule;
  export default module;
}
