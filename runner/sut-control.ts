/**
 * What cases may do to a gateway the harness launched (SutControl): kill it with SIGKILL and start
 * it again, kill it the moment a chosen stanza leaves it — before the server sees that stanza —
 * through the stanza tap of the component link's fault proxy, cut that link, and stop the process
 * with SIGSTOP. Every deliberate exit is announced to the session (`expectExit`), so that it is not
 * reported as the gateway dying on its own.
 */
import type { Element } from '@xmpp/xml';
import type { FaultProxy } from '../harness/faults/fault-proxy.ts';
import type { ManagedProcess } from '../harness/faults/managed-process.ts';
import { signalProcessTree } from '../harness/faults/process-tree.ts';
import type { Federation, FederationServer } from '../harness/federation/server-provider.ts';
import type { SutInstance } from '../harness/sut/launch.ts';
import { discoInfoProbe, waitForSutReady } from '../harness/sut/readiness.ts';
import type {
  ComponentLinkControl,
  KillPoint,
  S2sLinkControl,
  StorageFaultControl,
  SutControl,
} from '../suites/framework/context.ts';

export interface LaunchedSutControlOptions {
  readonly federation: Federation;
  readonly sut: SutInstance;
  readonly process: ManagedProcess;
  readonly gatewayJid: string;
  /** Around a deliberate kill: true before the signal, false once the gateway runs again. */
  readonly expectExit: (expecting: boolean) => void;
}

/** The component link's proxy, or undefined when the federation's links are not the harness's. */
export function componentLink(federation: Federation): FaultProxy | undefined {
  try {
    return federation.links.component;
  } catch {
    // An external federation: its links are not ours (ExternalFederation.links throws).
    return undefined;
  }
}

/** The component link's proxy when it also reads the stanzas on it (kill points, `onSent`). */
export function componentProxy(federation: Federation): FaultProxy | undefined {
  const proxy = componentLink(federation);
  return proxy?.inspectingStanzas === true ? proxy : undefined;
}

/** The server that serves the component domain, when the federation's servers are the harness's. */
export function componentServer(federation: Federation): FederationServer | undefined {
  if (federation.provider === 'external') return undefined;
  const { a, b } = federation.servers;
  return [b, a].find((server) => server.domains.includes(federation.component.domain));
}

export function s2sProxies(federation: Federation): readonly FaultProxy[] | undefined {
  try {
    return [federation.links.s2sAToB, federation.links.s2sBToA];
  } catch {
    return undefined;
  }
}

/** Resolves once the gateway answers a disco#info again (within its startup time). */
export async function gatewayAnswersAgain(
  federation: Federation,
  sut: SutInstance,
  gatewayJid: string,
): Promise<void> {
  const probe = await discoInfoProbe(federation, gatewayJid);
  try {
    await waitForSutReady(sut, () => probe.probe());
  } finally {
    await probe.close().catch(() => undefined);
  }
}

/**
 * Storage faults inside the launched gateway (libfiu): `during` runs while the fault is on; a
 * gateway that stopped on it (the reference gateway does on a failed sync) is started again.
 */
function storageFaultControl(
  faults: NonNullable<SutInstance['storageFaults']>,
  managed: ManagedProcess,
  expectExit: (expecting: boolean) => void,
  answersAgain: () => Promise<void>,
): StorageFaultControl {
  return {
    async failWhile<T>(
      fault: 'sync' | 'write',
      during: (exited: Promise<void>) => Promise<T>,
    ): Promise<{ value: T; exited: boolean }> {
      expectExit(true);
      // Set by the exit, outside this function's control flow.
      const state = { exited: false };
      const gone = managed.waitForExit().then(() => {
        state.exited = true;
      });
      let value: T;
      try {
        await faults.enable(fault);
        value = await during(gone);
      } finally {
        await faults.disable().catch(() => undefined);
        if (state.exited || !managed.running) {
          state.exited = true;
          await managed.restart();
        }
        expectExit(false);
        if (state.exited) await answersAgain();
      }
      return { value, exited: state.exited };
    },
  };
}

/** Both s2s directions at once. */
export function s2sControl(proxies: readonly FaultProxy[]): S2sLinkControl {
  return {
    cut: () => {
      for (const proxy of proxies) proxy.cut();
    },
    delay: (ms: number) => {
      for (const proxy of proxies) proxy.delay(ms);
    },
    restore: () => {
      for (const proxy of proxies) proxy.restore();
    },
  };
}

export function launchedSutControl(options: LaunchedSutControlOptions): SutControl {
  const { federation, sut, process: managed, gatewayJid, expectExit } = options;
  const answersAgain = (): Promise<void> => gatewayAnswersAgain(federation, sut, gatewayJid);
  const restart = async (): Promise<void> => {
    expectExit(true);
    try {
      await managed.restart();
    } finally {
      expectExit(false);
    }
    await answersAgain();
  };
  const proxy = componentProxy(federation);
  const link =
    proxy === undefined
      ? undefined
      : componentLinkControl({
          proxy,
          killAtHeld: () => killAtHeldStanza(proxy, managed, expectExit, answersAgain),
          answersAgain,
        });
  const s2s = s2sProxies(federation);
  const faults = sut.storageFaults;
  const storage =
    faults === undefined ? undefined : storageFaultControl(faults, managed, expectExit, answersAgain);
  const server = componentServer(federation);
  return {
    crashAndRestart: restart,
    ...(server === undefined ? {} : { server: { restart: () => server.restart() } }),
    ...(storage === undefined ? {} : { storage }),
    ...(link === undefined ? {} : { link }),
    ...(s2s === undefined ? {} : { s2s: s2sControl(s2s) }),
    freeze() {
      const pid = managed.pid;
      if (pid !== undefined) signalProcessTree(pid, 'SIGSTOP');
      return Promise.resolve();
    },
    async thaw() {
      const pid = managed.pid;
      if (pid !== undefined) signalProcessTree(pid, 'SIGCONT');
      await answersAgain();
    },
  };
}

/** The component link's one tap, held by at most one kill point at a time. */
interface TapSlot {
  armed: object | undefined;
}

/**
 * Arms the link's tap: the first stanza `matches` accepts is held (never forwarded), the tap is
 * released, and `onMatch` decides when `fired` settles with that stanza (at once when it returns
 * nothing); disarming before a match settles `fired` with undefined.
 */
function armTap(
  slot: TapSlot,
  proxy: FaultProxy,
  matches: (stanza: Element) => boolean,
  onMatch: (stanza: Element) => Promise<void> | undefined,
): KillPoint {
  if (slot.armed !== undefined) throw new Error('a kill point is armed already: disarm it first');
  let settle: (stanza: Element | undefined) => void = () => undefined;
  let fail: (error: unknown) => void = () => undefined;
  const fired = new Promise<Element | undefined>((resolve, reject) => {
    settle = resolve;
    fail = reject;
  });
  const point = {};
  const release = (): boolean => {
    if (slot.armed !== point) return false;
    slot.armed = undefined;
    proxy.tap(undefined);
    return true;
  };
  slot.armed = point;
  proxy.tap((stanza) => {
    if (slot.armed !== point || !matches(stanza)) return 'forward';
    release();
    const done = onMatch(stanza);
    if (done === undefined) settle(stanza);
    else
      done.then(
        () => {
          settle(stanza);
        },
        (error: unknown) => {
          fail(error);
        },
      );
    return 'hold';
  });
  return {
    fired,
    disarm: () => {
      if (release()) settle(undefined);
    },
  };
}

/**
 * Kills the gateway the moment it wrote a held stanza, then starts it again. Its synchronous
 * start runs inside the tap's callback: the process group is killed before anything else.
 */
async function killAtHeldStanza(
  proxy: FaultProxy,
  managed: ManagedProcess,
  expectExit: (expecting: boolean) => void,
  answersAgain: () => Promise<void>,
): Promise<void> {
  expectExit(true);
  const pid = managed.pid;
  // The process group first, in this very callback: every moment the gateway lives on
  // after writing the stanza is a moment in which it may still commit what it promised.
  if (pid !== undefined) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // ESRCH: gone already.
    }
  }
  try {
    await managed.kill9();
    // What the dead gateway wrote and the tap held goes nowhere: the connection is reset.
    proxy.cut();
    await managed.restart();
  } finally {
    expectExit(false);
  }
  await answersAgain();
}

/** What a component link control is made of, whoever started the gateway behind it. */
export interface ComponentLinkParts {
  /** The link's fault proxy, reading the stanzas the gateway writes. */
  readonly proxy: FaultProxy;
  /** Kills the gateway while the tap holds what it wrote, and resolves once it answers again. */
  readonly killAtHeld: () => Promise<void>;
  /** Throws why the gateway cannot be killed, before a kill point is armed (default: it can). */
  readonly assertKillable?: () => void;
  readonly answersAgain: () => Promise<void>;
}

/** The component link as cases see it (ComponentLinkControl), on the harness's fault proxy. */
export function componentLinkControl(parts: ComponentLinkParts): ComponentLinkControl {
  const { proxy, killAtHeld, answersAgain } = parts;
  const slot: TapSlot = { armed: undefined };
  return {
    onSent(listener) {
      proxy.on('stanza', listener);
      return () => {
        proxy.off('stanza', listener);
      };
    },
    killBeforeForwarding: (matches) => {
      parts.assertKillable?.();
      return armTap(slot, proxy, matches, killAtHeld);
    },
    holdBeforeForwarding: (matches) => armTap(slot, proxy, matches, () => undefined),
    async cut(whileDown) {
      // Frozen first: the gateway's reconnection is accepted but goes nowhere until the link is
      // restored, so whatever happens meanwhile happens while the gateway is offline.
      proxy.freeze();
      proxy.cut();
      try {
        await whileDown?.();
      } finally {
        proxy.resume();
      }
      await answersAgain();
    },
    async inject(raw) {
      const written = await proxy.inject(raw);
      if (written === 0) throw new Error('no component stream is open to write to');
    },
    answering: answersAgain,
    get connections() {
      return proxy.acceptedConnections;
    },
    closed() {
      return new Promise((resolve) => {
        proxy.once('closed', () => {
          resolve();
        });
      });
    },
  };
}
