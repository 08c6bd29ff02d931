/**
 * Stanzas the gateway wrote on its component link, as the harness's proxy reads them
 * (SutControl.link): the <accepted/> answer to one request and lifecycle events, and a record of
 * every event sent per task, which holds the gateway to one event ID and payload per revision
 * across kills, cuts and re-sends (#events: an identical replay keeps its event ID).
 */
import type { Element } from '@xmpp/xml';
import { canonicalJson } from '../../../protocol/json/canonical.ts';
import { parseStrictJson } from '../../../protocol/json/strict-json.ts';
import { NS_AGENT_TASK } from '../../../protocol/namespaces.ts';
import { parseAccepted, parseEvent, type Accepted, type TaskEvent } from '../../../protocol/stanza/index.ts';
import { expectThat } from '../../framework/expect.ts';
import type { ComponentLinkControl } from '../../framework/context.ts';

/** The <accepted/> of an IQ result answering `requestId`, if `stanza` is one. */
export function acceptedOnWire(stanza: Element, requestId: string): Accepted | undefined {
  if (stanza.name !== 'iq' || stanza.attrs['type'] !== 'result') return undefined;
  const accepted = stanza.getChild('accepted', NS_AGENT_TASK);
  if (accepted?.attrs['request-id'] !== requestId) return undefined;
  try {
    return parseAccepted(accepted);
  } catch {
    return undefined;
  }
}

/** The lifecycle event `stanza` carries, if it is a message with a well-formed one. */
export function eventOnWire(stanza: Element): TaskEvent | undefined {
  if (stanza.name !== 'message') return undefined;
  const event = stanza.getChild('event', NS_AGENT_TASK);
  if (event === undefined) return undefined;
  try {
    return parseEvent(event);
  } catch {
    return undefined;
  }
}

function canonicalPayload(json: string): string {
  try {
    return canonicalJson(parseStrictJson(json));
  } catch {
    return json;
  }
}

/**
 * Every event the gateway sends for the watched tasks, held-back ones included (`add`), so that
 * a second send of a revision can be compared with the first.
 */
export class WireEvents {
  readonly #byTask = new Map<string, Map<number, { event: TaskEvent; xml: string }[]>>();
  readonly #watched = new Set<string>();
  readonly #stop: () => void;

  constructor(link: ComponentLinkControl) {
    this.#stop = link.onSent((stanza) => {
      this.add(stanza);
    });
  }

  watch(taskId: string): void {
    this.#watched.add(taskId);
  }

  /** Records a stanza (the proxy's listener, and a held stanza the listener saw as well is harmless). */
  add(stanza: Element): void {
    const event = eventOnWire(stanza);
    if (event === undefined || !this.#watched.has(event.taskId)) return;
    const revisions =
      this.#byTask.get(event.taskId) ?? new Map<number, { event: TaskEvent; xml: string }[]>();
    this.#byTask.set(event.taskId, revisions);
    const sends = revisions.get(event.revision) ?? [];
    revisions.set(event.revision, sends);
    const xml = stanza.toString();
    if (!sends.some((send) => send.xml === xml)) sends.push({ event, xml });
  }

  /** How many distinct sends of each revision of the task the link carried. */
  sends(taskId: string): { revision: number; count: number }[] {
    return [...(this.#byTask.get(taskId) ?? new Map<number, unknown[]>())].map(([revision, sends]) => ({
      revision,
      count: sends.length,
    }));
  }

  /** events.replay-identical: every send of a revision has the first send's event ID, type and payload. */
  expectIdenticalRepeats(taskId: string): void {
    for (const sends of this.#byTask.get(taskId)?.values() ?? []) {
      const [first, ...repeats] = sends;
      if (first === undefined) continue;
      for (const repeat of repeats) {
        expectThat(
          `sent again on the component link:\n${repeat.xml}`,
          'events.replay-identical',
          `the same event ID, type and payload as the first send of revision ${String(first.event.revision)}:\n${first.xml}`,
          repeat.event.eventId === first.event.eventId &&
            repeat.event.type === first.event.type &&
            canonicalPayload(repeat.event.json) === canonicalPayload(first.event.json),
        );
      }
    }
  }

  stop(): void {
    this.#stop();
  }
}
