/**
 * SutControl for a gateway the harness does not start (SUT `external`: `kill`, `freeze`, `thaw`,
 * `storageFault`, docs/sut.md): the operator's commands do the signalling and fail the storage,
 * the operator's supervisor restarts the gateway, and the harness checks on the component link
 * that each command did what it claims — a kill that leaves the gateway's connection open, or a
 * freeze after which it still answers, would let a crash or freeze case pass on no evidence, so
 * the case cannot tell instead. Everything else a case does to the gateway's surroundings (cut,
 * hold or write into the component link, cut the s2s links, restart its server) is the harness's
 * own federation, the same as for a gateway it launches: the gateway connects through its proxy.
 */
import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { xml } from '@xmpp/xml';
import type { FaultProxy } from '../harness/faults/fault-proxy.ts';
import type { Federation } from '../harness/federation/server-provider.ts';
import type { SutInstance } from '../harness/sut/launch.ts';
import type { Argv, ExternalGatewayControl } from '../harness/sut/sut-config.ts';
import { StanzaErrorReply, type Caller } from '../harness/driver/index.ts';
import { NS } from '../protocol/namespaces.ts';
import type { SutControl } from '../suites/framework/context.ts';
import { CannotTell } from '../suites/framework/verdicts.ts';
import {
  componentLinkControl,
  componentProxy,
  componentServer,
  gatewayAnswersAgain,
  s2sControl,
  s2sProxies,
} from './sut-control.ts';
import { externalStorageFaults } from './external-storage-faults.ts';

/** Longest an operator command may take. */
const COMMAND_TIMEOUT_MS = 30_000;
/** How long a frozen gateway must stay silent to a ping before the freeze counts as done. */
const FROZEN_SILENCE_MS = 1_000;

export interface ExternalSutControlOptions {
  readonly control: ExternalGatewayControl;
  readonly federation: Federation;
  readonly sut: SutInstance;
  readonly gatewayJid: string;
  /** A caller to ping the gateway with (the freeze check). */
  readonly pinger: () => Promise<Caller>;
  /** How long a command may take, and a killed gateway's connection may stay open (tests shorten it). */
  readonly commandTimeoutMs?: number;
}

/** Runs an operator command (`external.<what>` of the SUT file); its failure makes the case undecided. */
export function runCommand(what: string, argv: Argv, timeoutMs: number): Promise<void> {
  const [program, ...args] = argv;
  return new Promise((resolve, reject) => {
    execFile(program, args, { timeout: timeoutMs }, (error, _stdout, stderr) => {
      if (error === null) {
        resolve();
        return;
      }
      const tail = stderr.trim().split('\n').slice(-3).join(' | ');
      reject(
        new CannotTell(
          `the SUT file's external.${what} command (${argv.join(' ')}) failed: ${error.message.split('\n')[0] ?? ''}${tail === '' ? '' : `; stderr: ${tail}`}`,
        ),
      );
    });
  });
}

/** What a case that needs `what` cannot tell without, in the words reports and docs use. */
export function missingCommand(what: 'kill' | 'freeze' | 'thaw'): string {
  const does = {
    kill: 'kill the gateway (SIGKILL) for its supervisor to restart',
    freeze: 'freeze the gateway (SIGSTOP)',
    thaw: 'thaw the gateway (SIGCONT)',
  }[what];
  return `needs the SUT file's external.${what} command, to ${does}: the harness does not start this gateway (docs/sut.md, "What only the operator can tell the run")`;
}

/** The operator command the SUT file declares for `what`; a case that needs a missing one cannot tell. */
function declared(control: ExternalGatewayControl, what: 'kill' | 'freeze' | 'thaw'): Argv {
  const argv = control[what];
  if (argv === undefined) throw new CannotTell(missingCommand(what));
  return argv;
}

/** Whether the link's connection closes within `timeoutMs`. */
function closesWithin(closed: Promise<unknown>, timeoutMs: number): Promise<boolean> {
  return Promise.race([
    closed.then(() => true),
    new Promise<false>((resolve) =>
      setTimeout(() => {
        resolve(false);
      }, timeoutMs).unref(),
    ),
  ]);
}

/** What the operations share: the commands, their limit, the link and the readiness wait. */
interface ControlParts {
  readonly options: ExternalSutControlOptions;
  readonly proxy: FaultProxy;
  readonly timeoutMs: number;
  readonly answersAgain: () => Promise<void>;
}

/** external.kill, proved on the link: the connection closes, and the restarted gateway connects anew. */
async function crashByCommand({ options, proxy, timeoutMs, answersAgain }: ControlParts): Promise<void> {
  const kill = declared(options.control, 'kill');
  if (proxy.openConnections === 0)
    throw new CannotTell('the gateway has no component connection to kill (it is not connected)');
  const accepted = proxy.acceptedConnections;
  const closed = once(proxy, 'closed');
  await runCommand('kill', kill, timeoutMs);
  if (!(await closesWithin(closed, timeoutMs)))
    throw new CannotTell(
      `the SUT file's external.kill command exited 0 but the gateway's component connection stayed open for ${String(timeoutMs / 1000)} s: it did not kill the gateway`,
    );
  await answersAgain();
  if (proxy.acceptedConnections === accepted)
    throw new CannotTell('the gateway answers again but never reconnected: external.kill did not end it');
}

/**
 * external.kill while the link's tap holds a stanza the gateway wrote: nothing it writes from then
 * on reaches the server, the gateway's end of the connection is seen to close, and only then is
 * the connection reset, so that what was held goes nowhere. The command takes a few milliseconds
 * longer than the harness's own SIGKILL: a gateway that commits a moment after writing wins that
 * race more often, but whatever had left it was still a promise it must keep.
 */
async function killHeldByCommand({ options, proxy, timeoutMs, answersAgain }: ControlParts): Promise<void> {
  const kill = declared(options.control, 'kill');
  const accepted = proxy.acceptedConnections;
  const ended = once(proxy, 'client-ended');
  try {
    await runCommand('kill', kill, timeoutMs);
    if (!(await closesWithin(ended, timeoutMs)))
      throw new CannotTell(
        `the SUT file's external.kill command exited 0 but the gateway kept its component connection open for ${String(timeoutMs / 1000)} s: it did not kill the gateway`,
      );
  } finally {
    proxy.cut();
  }
  await answersAgain();
  if (proxy.acceptedConnections === accepted)
    throw new CannotTell('the gateway answers again but never reconnected: external.kill did not end it');
}

/** external.freeze, proved by a ping the gateway leaves unanswered; one it answers is thawed again. */
async function freezeByCommand({ options, timeoutMs }: ControlParts): Promise<void> {
  const { control, gatewayJid } = options;
  await runCommand('freeze', declared(control, 'freeze'), timeoutMs);
  const caller = await options.pinger();
  // A result or an error the gateway itself sent is an answer; a timeout is the silence a
  // frozen gateway keeps, and the case goes on only once it is known to be frozen.
  const answered = await caller
    .iq(gatewayJid, 'get', xml('ping', { xmlns: NS.ping }), { timeoutMs: FROZEN_SILENCE_MS })
    .then(
      () => true,
      (error: unknown) => error instanceof StanzaErrorReply && error.from === gatewayJid,
    );
  if (answered) {
    const { thaw } = control;
    if (thaw !== undefined) await runCommand('thaw', thaw, timeoutMs).catch(() => undefined);
    throw new CannotTell('the gateway still answered a ping after external.freeze: it is not frozen');
  }
}

async function thawByCommand({ options, timeoutMs, answersAgain }: ControlParts): Promise<void> {
  await runCommand('thaw', declared(options.control, 'thaw'), timeoutMs);
  await answersAgain();
}

/**
 * Undefined when the run cannot watch the component link (an external federation). Otherwise
 * every control a launched gateway has: what needs an operator command the SUT file lacks makes
 * the case that uses it undecided, naming the command.
 */
export function externalSutControl(options: ExternalSutControlOptions): SutControl | undefined {
  const { control, federation, sut, gatewayJid } = options;
  const proxy = componentProxy(federation);
  if (proxy === undefined) return undefined;
  const timeoutMs = options.commandTimeoutMs ?? COMMAND_TIMEOUT_MS;
  const answersAgain = (): Promise<void> => gatewayAnswersAgain(federation, sut, gatewayJid);
  const parts: ControlParts = { options, proxy, timeoutMs, answersAgain };
  const link = componentLinkControl({
    proxy,
    killAtHeld: () => killHeldByCommand(parts),
    assertKillable: () => declared(control, 'kill'),
    answersAgain,
  });
  const server = componentServer(federation);
  const s2s = s2sProxies(federation);
  const commands = control.storageFault;
  const storage =
    commands === undefined
      ? undefined
      : externalStorageFaults({
          commands,
          proxy,
          run: (what, argv) => runCommand(what, argv, timeoutMs),
          answersAgain,
        });
  return {
    crashAndRestart: () => crashByCommand(parts),
    freeze: () => freezeByCommand(parts),
    thaw: () => thawByCommand(parts),
    link,
    ...(server === undefined ? {} : { server: { restart: () => server.restart() } }),
    ...(s2s === undefined ? {} : { s2s: s2sControl(s2s) }),
    ...(storage === undefined ? {} : { storage }),
  };
}
