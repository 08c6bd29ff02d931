// The chaos gateway: a XEP-0114 component that answers every stanza with a random choice of
// legal and illegal behaviour, for proving that the runner survives whatever a gateway does
// (issue 22, item 7). Each IQ get or set draws one answer: an empty result, a result or error
// carrying garbage, the request echoed back, an error with a random condition, two replies,
// none, a reply after the case's deadline, a reply of the wrong type, or the stream dropped
// (the link comes back after a short delay, as a restarting gateway's would). Messages and
// presence are sometimes answered with a garbage task event or a stray presence. Nothing it
// sends is meant to be right: a case that passes against it decided nothing.
//
// Seeded (pure-rand): the same seed draws the same sequence of choices for the same sequence of
// stanzas; the arrival order itself depends on timing, so a replay is close, not exact.
import xml, { type Element } from '@xmpp/xml';
import { uniformInt } from 'pure-rand/distribution/uniformInt';
import { xoroshiro128plus } from 'pure-rand/generator/xoroshiro128plus';
import { ComponentLink } from '../../../protocol/component-link/component-link.ts';
import { ALL_AGENT_FEATURES, NS, NS_AGENT_API, NS_AGENT_TASK } from '../../../protocol/namespaces.ts';

export interface ChaosGatewayOptions {
  readonly host: string;
  readonly port: number;
  readonly domain: string;
  readonly secret: string;
  readonly seed: number;
  /** How late a "late" reply comes: past the run's reply deadline. */
  readonly lateMs: number;
  /** How long the link stays down after a drop. */
  readonly reconnectMs?: number;
  /**
   * 'advertise-all': every disco#info is answered with a well-formed result advertising every
   * feature of the protocol, on every node, so that the preflight lets the cases reach the chaos
   * (the one thing this gateway gets right). 'chaos': disco#info draws like any other IQ.
   */
  readonly discoInfo: 'advertise-all' | 'chaos';
  /** Only these answers are drawn (default: all of IQ_ANSWERS, weighted). */
  readonly answers?: readonly IqAnswer[];
}

/** What the chaos gateway may do with one IQ get or set. */
export const IQ_ANSWERS = [
  'empty-result',
  'garbage-result',
  'echo-result',
  'random-error',
  'garbage-error',
  'twice',
  'silence',
  'late',
  'wrong-type',
  'wrong-id',
  'drop-link',
] as const;
export type IqAnswer = (typeof IQ_ANSWERS)[number];

/** Relative weights: mostly quick wrong answers, so a run finishes; the slow ones stay rare. */
const WEIGHTS: Readonly<Record<IqAnswer, number>> = {
  'empty-result': 6,
  'garbage-result': 6,
  'echo-result': 4,
  'random-error': 6,
  'garbage-error': 3,
  twice: 3,
  silence: 1,
  late: 1,
  'wrong-type': 2,
  'wrong-id': 2,
  'drop-link': 1,
};

const CONDITIONS = [
  'bad-request',
  'item-not-found',
  'not-allowed',
  'forbidden',
  'conflict',
  'not-acceptable',
  'service-unavailable',
  'resource-constraint',
  'internal-server-error',
  'feature-not-implemented',
  'no-such-condition',
];
const ERROR_TYPES = ['cancel', 'modify', 'wait', 'auth', 'bogus'];
const GARBAGE_NAMESPACES = [
  NS_AGENT_API,
  NS_AGENT_TASK,
  'urn:agentconf:chaos',
  'jabber:x:data',
  NS.discoInfo,
];
const GARBAGE_NAMES = ['query', 'accepted', 'manifest', 'task', 'items', 'x', 'blob', 'result', 'state'];
const GARBAGE_TEXTS = [
  '',
  '{',
  '{"a":',
  'null',
  '[]',
  '{"state":"completed"}',
  '\u00e9\u0301',
  'x'.repeat(300),
];

export interface ChaosGateway {
  readonly link: ComponentLink;
  /** How many times each answer was drawn so far. */
  readonly drawn: Readonly<Record<IqAnswer, number>>;
  stop(): Promise<void>;
}

class ChaosDice {
  readonly #generator;
  readonly #answers: readonly IqAnswer[];

  constructor(seed: number, answers: readonly IqAnswer[]) {
    this.#generator = xoroshiro128plus(seed);
    this.#answers = answers;
  }

  int(from: number, to: number): number {
    return uniformInt(this.#generator, from, to);
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)] as T;
  }

  answer(): IqAnswer {
    const total = this.#answers.reduce((sum, answer) => sum + WEIGHTS[answer], 0);
    let roll = this.int(1, total);
    for (const answer of this.#answers) {
      roll -= WEIGHTS[answer];
      if (roll <= 0) return answer;
    }
    return this.pick(this.#answers);
  }

  /** An element that looks like protocol and means nothing: random names, attributes, text. */
  garbage(depth = 0): Element {
    const attrs: Record<string, string> = { xmlns: this.pick(GARBAGE_NAMESPACES) };
    if (this.int(0, 1) === 1) attrs['media-type'] = this.pick(['application/json', 'text/plain']);
    if (this.int(0, 2) === 0) attrs['id'] = this.pick(GARBAGE_TEXTS);
    const children: (Element | string)[] = [];
    if (depth < 2 && this.int(0, 1) === 1) children.push(this.garbage(depth + 1));
    if (this.int(0, 1) === 1) children.push(this.pick(GARBAGE_TEXTS));
    return xml(this.pick(GARBAGE_NAMES), attrs, ...children);
  }

  error(): Element {
    return xml('error', { type: this.pick(ERROR_TYPES) }, xml(this.pick(CONDITIONS), { xmlns: NS.stanzas }));
  }
}

function addresses(stanza: Element): { from?: string; to?: string; id?: string } {
  return stanza.attrs;
}

export async function startChaosGateway(options: ChaosGatewayOptions): Promise<ChaosGateway> {
  const answers = options.answers ?? IQ_ANSWERS;
  if (answers.length === 0) throw new RangeError('the chaos gateway needs at least one answer to draw');
  const dice = new ChaosDice(options.seed, answers);
  const reconnectMs = options.reconnectMs ?? 200;
  const link = new ComponentLink({ ...options, reconnectDelay: () => reconnectMs });
  const drawn = Object.fromEntries(IQ_ANSWERS.map((answer) => [answer, 0])) as Record<IqAnswer, number>;
  const timers = new Set<NodeJS.Timeout>();
  const send = (stanza: Element): void => {
    link.write(stanza.toString()).catch(() => undefined);
  };
  const later = (ms: number, action: () => void): void => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      action();
    }, ms);
    timers.add(timer);
  };
  const reply = (request: Element, type: string, ...children: Element[]): Element => {
    const { from, to, id } = addresses(request);
    return xml('iq', { from: to, to: from, id, type }, ...children);
  };

  const advertisedEverything = (request: Element): Element => {
    const node: unknown = request.getChildElements()[0]?.attrs['node'];
    const features = [...ALL_AGENT_FEATURES, NS.search, NS.discoInfo, NS.discoItems, NS.rsm, NS.ping];
    return reply(
      request,
      'result',
      xml(
        'query',
        typeof node === 'string' ? { xmlns: NS.discoInfo, node } : { xmlns: NS.discoInfo },
        xml('identity', { category: 'automation', type: 'gateway', name: 'chaos' }),
        ...features.map((feature) => xml('feature', { var: feature })),
      ),
    );
  };

  /** The reply sent at once for a drawn answer (undefined: none now). */
  const replyNow = (answer: IqAnswer, request: Element): Element | undefined => {
    const payload = request.getChildElements()[0];
    switch (answer) {
      case 'empty-result':
        return reply(request, 'result');
      case 'garbage-result':
      case 'twice':
        return reply(request, 'result', dice.garbage());
      case 'echo-result':
        return reply(request, 'result', ...(payload === undefined ? [] : [payload]));
      case 'random-error':
        return reply(request, 'error', dice.error());
      case 'garbage-error':
        return reply(request, 'error', dice.garbage(), xml('error', { type: 'cancel' }, dice.garbage()));
      case 'wrong-type':
        return reply(request, dice.pick(['get', 'set', 'chat', 'normal']), dice.garbage());
      case 'wrong-id': {
        const { from, to, id } = addresses(request);
        return xml('iq', { from: to, to: from, id: `${id ?? ''}-chaos`, type: 'result' });
      }
      case 'silence':
      case 'late':
      case 'drop-link':
        return undefined;
    }
  };

  /** What a drawn answer does after its immediate reply, if anything. */
  const followUp = (answer: IqAnswer, request: Element): void => {
    if (answer === 'twice') {
      later(dice.int(0, 50), () => {
        send(reply(request, 'error', dice.error()));
      });
    } else if (answer === 'late') {
      later(options.lateMs, () => {
        send(reply(request, 'result', dice.garbage()));
      });
    } else if (answer === 'drop-link') {
      // Mid-case, the way a crashing gateway's link goes: the server bounces what is in flight.
      link.drop();
    }
  };

  const answerIq = (request: Element): void => {
    if (options.discoInfo === 'advertise-all' && request.getChild('query', NS.discoInfo) !== undefined) {
      send(advertisedEverything(request));
      return;
    }
    const answer = dice.answer();
    drawn[answer] += 1;
    const now = replyNow(answer, request);
    if (now !== undefined) send(now);
    followUp(answer, request);
  };

  /** Messages and presence: now and then a garbage message or a stray presence back. */
  const answerOther = (stanza: Element): void => {
    const { from, to, id } = addresses(stanza);
    if (from === undefined || to === undefined) return;
    const roll = dice.int(0, 3);
    // With the message's own id, so that it reads as the answer to it.
    const echoedId = id === undefined ? {} : { id };
    if (roll === 0) send(xml('message', { from: to, to: from, type: 'normal', ...echoedId }, dice.garbage()));
    if (roll === 1) {
      const type = dice.pick(['subscribed', 'unavailable', 'error']);
      send(xml('presence', { from: to, to: from, type }));
    }
  };

  link.on('stanza', (stanza) => {
    const type: unknown = stanza.attrs['type'];
    if (stanza.name === 'iq' && (type === 'get' || type === 'set')) answerIq(stanza);
    else if (stanza.name !== 'iq') answerOther(stanza);
  });
  // A dropped stream or a closed server is this gateway's normal weather, never its crash.
  link.on('error', () => undefined);
  await link.start();
  return {
    link,
    drawn,
    async stop() {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      await link.stop().catch(() => undefined);
    },
  };
}
