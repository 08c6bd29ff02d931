// The stand-in gateway of the harness tests: a XEP-0114 component that answers every IQ get with a
// result carrying a copy of the request's payload. Kept minimal on purpose — it is the federation
// that is under test, not the component.
import componentPackage, { type XmppComponent } from '@xmpp/component';

export interface EchoComponentOptions {
  readonly host: string;
  readonly port: number;
  readonly domain: string;
  readonly secret: string;
}

export interface EchoComponent {
  readonly connection: XmppComponent;
  /** IQ gets answered so far. */
  readonly answered: number;
  stop(): Promise<void>;
}

export async function startEchoComponent(options: EchoComponentOptions): Promise<EchoComponent> {
  const connection = componentPackage.component({
    service: `xmpp://${options.host}:${options.port}`,
    domain: options.domain,
    password: options.secret,
  });
  // The harness decides when the component comes back; the library must not reconnect on its own.
  connection.reconnect.stop();
  connection.on('error', () => undefined);
  let answered = 0;
  connection.middleware.use((context, next) => {
    // A returned element becomes the <iq type='result'/>'s child (errors for everything else).
    if (context.name === 'iq' && context.type === 'get' && context.element !== undefined) {
      answered += 1;
      return context.element;
    }
    return next();
  });
  connection.on('connect', () => {
    (connection as unknown as { socket?: { setNoDelay?: (on: boolean) => void } }).socket?.setNoDelay?.(true);
  });
  await connection.start();
  return {
    connection,
    get answered() {
      return answered;
    },
    async stop() {
      await connection.stop().catch(() => undefined);
    },
  };
}
