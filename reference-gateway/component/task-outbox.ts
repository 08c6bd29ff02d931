/**
 * The task engine's delivery port on the component link (#events, #task-message-routing).
 *
 * The engine hands over each lifecycle message once, right after its COMMIT, and treats
 * delivery as best-effort: it does not retry. Its guarantee is that every committed event
 * reaches the route unless the network loses it, and that a re-sent event is identical (same
 * event ID, revision and payload). The component can only send while its stream is up, so the
 * outbox keeps that guarantee across a start before the first connection (crash recovery
 * settles tasks before the gateway is online) and across a lost stream: a message the link did
 * not take is remembered as (task, first revision not taken) — never the message itself, the
 * store has it — and that task's events from there on are re-sent from the store once the link
 * is back. Memory stays bounded by the number of tasks, not events.
 *
 * It also remembers, for a bounded number of recent sends, which event went to which address,
 * so that a bounce (a message error from that address) can be tied to its task.
 */
import type { Element } from '@xmpp/xml';
import { JidError, normalizeJid } from '../../protocol/jid/index.ts';
import { NS_AGENT_TASK } from '../../protocol/namespaces.ts';

/** Sends one stanza; false when the link did not take it (offline, or the write failed). */
export type StanzaSender = (stanza: Element) => Promise<boolean>;

/** An event the outbox handed to the link: which task, which revision, to whom. */
export interface SentEvent {
  readonly taskId: string;
  readonly revision: number;
  /** The normalized address it was sent to. */
  readonly to: string;
}

/** How many recent sends a bounce can be tied back to; older bounces only move the route. */
export const DEFAULT_SENT_MEMORY = 4096;

function eventOf(message: Element): { readonly id: string; readonly sent: SentEvent } | undefined {
  const event = message.getChild('event', NS_AGENT_TASK);
  const { id, to } = message.attrs as Record<string, unknown>;
  const taskId: unknown = event?.attrs['task-id'];
  const revision = Number(event?.attrs['revision']);
  if (typeof id !== 'string' || typeof to !== 'string' || typeof taskId !== 'string') return undefined;
  if (!Number.isSafeInteger(revision)) return undefined;
  try {
    return { id, sent: { taskId, revision, to: normalizeJid(to) } };
  } catch (error) {
    if (error instanceof JidError) return undefined;
    throw error;
  }
}

export class TaskOutbox {
  readonly #sentMemory: number;
  readonly #log: (line: string) => void;
  #sender: StanzaSender | undefined;
  /** Task ID → the lowest revision the link did not take. */
  readonly #undelivered = new Map<string, number>();
  /** Stanza ID (the event ID) → what was sent; insertion order is age. */
  readonly #sent = new Map<string, SentEvent>();

  constructor(options: { readonly sentMemory?: number; readonly log?: (line: string) => void } = {}) {
    this.#sentMemory = options.sentMemory ?? DEFAULT_SENT_MEMORY;
    this.#log = options.log ?? (() => undefined);
  }

  /** The engine's DeliverPort: never throws, never blocks the committing caller. */
  readonly deliver = (message: Element): void => {
    const described = eventOf(message);
    if (described === undefined) {
      // Only the engine calls this, and it builds complete lifecycle messages.
      this.#log('gateway: a task message without task-id, revision, id or to was not sent');
      return;
    }
    const { id, sent } = described;
    const sender = this.#sender;
    if (sender === undefined) {
      this.#remember(sent);
      return;
    }
    sender(message).then(
      (taken) => {
        if (taken) this.#recordSent(id, sent);
        else this.#remember(sent);
      },
      () => {
        this.#remember(sent);
      },
    );
  };

  /** From now on messages go to `sender` (the component's send). */
  attach(sender: StanzaSender): void {
    this.#sender = sender;
  }

  /** Tasks with events the link did not take, and the first such revision of each. */
  get undelivered(): ReadonlyMap<string, number> {
    return this.#undelivered;
  }

  /**
   * The link is up: every remembered task's events from its first untaken revision on are
   * handed to `resend` (the engine's resendEvents, which reads them from the store and delivers
   * them again through this outbox). Returns how many tasks were re-sent.
   */
  flush(resend: (taskId: string, fromRevision: number) => void): number {
    const pending = [...this.#undelivered];
    this.#undelivered.clear();
    for (const [taskId, fromRevision] of pending) resend(taskId, fromRevision);
    return pending.length;
  }

  /** What the link took under this stanza ID, if it is recent enough to be remembered. */
  sentEvent(stanzaId: string): SentEvent | undefined {
    return this.#sent.get(stanzaId);
  }

  #remember(sent: SentEvent): void {
    const first = this.#undelivered.get(sent.taskId);
    if (first === undefined || sent.revision < first) this.#undelivered.set(sent.taskId, sent.revision);
  }

  #recordSent(id: string, sent: SentEvent): void {
    this.#sent.delete(id);
    this.#sent.set(id, sent);
    if (this.#sent.size <= this.#sentMemory) return;
    const oldest = this.#sent.keys().next();
    if (oldest.done !== true) this.#sent.delete(oldest.value);
  }
}
