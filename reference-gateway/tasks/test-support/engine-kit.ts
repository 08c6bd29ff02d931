/**
 * A task engine over a throw-away store with a small registered world, a fake clock, a
 * controlled runtime and a delivery port that records every lifecycle message.
 *
 * World: weather@agents.example 1.0.0 (active) and 0.9.0 (registered, inactive), with
 * - forecast.get: city argument, outputSchema {summary}, progress/cancel/input supported;
 * - plain: any object, no declared support for progress, cancellation or input;
 * - guarded: approvalRequired;
 * - quick: defaultTimeoutSeconds 10, maximumTimeoutSeconds 60.
 * vault@agents.example (hidden, invocable by bob) and idle@agents.example (no runtime).
 * bob@server.example may invoke everything; alice@example.com only weather's forecast.get;
 * carol@example.com may see weather but invoke nothing.
 */
import type { Element } from '@xmpp/xml';
import { parseDateTime } from '../../../protocol/datetime.ts';
import { canonicalDocument } from '../../../protocol/json/canonical.ts';
import type { JsonObject, JsonValue } from '../../../protocol/json/json-value.ts';
import { NS_AGENT_API } from '../../../protocol/namespaces.ts';
import { parseLifecycleMessage, type LifecycleMessage } from '../../../protocol/stanza/task-event.ts';
import { buildInvoke, parseInvoke, type Invoke } from '../../../protocol/stanza/task-invoke.ts';
import { BudgetedValidator } from '../../../protocol/tool-schema/index.ts';
import { generateIdentifier } from '../../../protocol/identifiers.ts';
import type { Requester } from '../../catalog/catalog.ts';
import { compileAccessPolicy } from '../../policy/access-policy.ts';
import type { Grant } from '../../policy/policy-rules.ts';
import type { ToolRuntime } from '../../runtime/tool-runtime.ts';
import type { GatewayStore } from '../../store/gateway-store.ts';
import { FIXED_NOW, tempStoreDir, type TempStoreDir } from '../../store/test-support/temp-store.ts';
import { TaskEngine, type TaskEngineOptions } from '../task-engine.ts';
import { ControlledRuntime } from './controlled-runtime.ts';
import { FakeClock } from './fake-clock.ts';

export const WEATHER = 'weather@agents.example';
export const VAULT = 'vault@agents.example';
export const IDLE = 'idle@agents.example';

export function requester(fullJid: string): Requester {
  const bareJid = fullJid.split('/')[0] ?? fullJid;
  return { fullJid, bareJid, domain: bareJid.slice(bareJid.indexOf('@') + 1) };
}

export const BOB = requester('bob@server.example/desk');
export const BOB_PHONE = requester('bob@server.example/phone');
export const ALICE = requester('alice@example.com/laptop');
export const CAROL = requester('carol@example.com/tablet');

const CITY_SCHEMA: JsonObject = {
  type: 'object',
  properties: { city: { type: 'string' } },
  required: ['city'],
  additionalProperties: false,
};

function weatherManifest(version: string): JsonObject {
  return {
    manifestSpecVersion: '0',
    agent: { jid: WEATHER, name: 'weather', version },
    tools: [
      {
        name: 'forecast.get',
        inputSchema: CITY_SCHEMA,
        outputSchema: { type: 'object', properties: { summary: { type: 'string' } }, required: ['summary'] },
        [NS_AGENT_API]: { supportsProgress: true, supportsCancellation: true, supportsInput: true },
      },
      { name: 'plain', inputSchema: { type: 'object' } },
      { name: 'guarded', inputSchema: { type: 'object' }, [NS_AGENT_API]: { approvalRequired: true } },
      {
        name: 'quick',
        inputSchema: { type: 'object' },
        [NS_AGENT_API]: { defaultTimeoutSeconds: 10, maximumTimeoutSeconds: 60, supportsCancellation: true },
      },
    ],
  };
}

function simpleManifest(jid: string): JsonObject {
  return {
    manifestSpecVersion: '0',
    agent: { jid, name: jid.split('@')[0] ?? 'x', version: '1.0.0' },
    tools: [{ name: 'plain', inputSchema: { type: 'object' } }],
  };
}

function register(store: GatewayStore, jid: string, manifest: JsonValue, active: boolean): void {
  const document = canonicalDocument(manifest);
  const version = (manifest as { agent: { version: string } }).agent.version;
  store.registrations.insertVersion({ jid, version, canonicalJson: document.bytes, hash: document.hash });
  if (active) store.registrations.setActiveVersion(jid, version);
}

const invokeGrant = (subject: string, endpoint: string | null, tool: string | null = null): Grant => ({
  subjectKind: 'principal',
  subject,
  action: 'invoke',
  endpoint,
  tool,
});

export interface Delivered {
  readonly element: Element;
  readonly lifecycle: LifecycleMessage;
}

export class DeliveryLog {
  readonly messages: Delivered[] = [];
  #listeners: (() => void)[] = [];

  readonly deliver = (element: Element): void => {
    this.messages.push({ element, lifecycle: parseLifecycleMessage(element) });
    for (const listener of this.#listeners.splice(0)) listener();
  };

  eventsOf(taskId: string): LifecycleMessage['event'][] {
    return this.messages.map((m) => m.lifecycle.event).filter((event) => event.taskId === taskId);
  }

  /** Resolves with the first delivered message matching, waiting up to `timeoutMs`. */
  waitFor(match: (delivered: Delivered) => boolean, timeoutMs = 5_000): Promise<Delivered> {
    const found = this.messages.find(match);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        reject(new Error(`no matching lifecycle message within ${timeoutMs} ms`));
      }, timeoutMs);
      const check = (): void => {
        const hit = this.messages.find(match);
        if (hit === undefined) {
          this.#listeners.push(check);
          return;
        }
        clearTimeout(timer);
        resolve(hit);
      };
      this.#listeners.push(check);
    });
  }

  /** The event of `taskId` at `revision`, once delivered. */
  async event(taskId: string, revision: number): Promise<LifecycleMessage['event']> {
    const delivered = await this.waitFor(
      (m) => m.lifecycle.event.taskId === taskId && m.lifecycle.event.revision === revision,
    );
    return delivered.lifecycle.event;
  }
}

export interface EngineKit {
  readonly dir: TempStoreDir;
  readonly store: GatewayStore;
  readonly clock: FakeClock;
  readonly runtime: ControlledRuntime;
  readonly delivered: DeliveryLog;
  readonly engine: TaskEngine;
  /** Starts another engine over the same store (after `engine.close()`), e.g. a restart. */
  restart(options?: Partial<TaskEngineOptions>): TaskEngine;
  close(): void;
}

let sharedValidator: BudgetedValidator | undefined;

/** One warm validator per test file; close it with closeKitValidator in afterAll. */
export function kitValidator(): BudgetedValidator {
  sharedValidator ??= new BudgetedValidator({ standby: false });
  return sharedValidator;
}

export async function closeKitValidator(): Promise<void> {
  await sharedValidator?.close();
  sharedValidator = undefined;
}

export function seedWorld(store: GatewayStore): void {
  register(store, WEATHER, weatherManifest('0.9.0'), false);
  register(store, WEATHER, weatherManifest('1.0.0'), true);
  register(store, VAULT, simpleManifest(VAULT), true);
  register(store, IDLE, simpleManifest(IDLE), true);
}

export const POLICY = compileAccessPolicy({
  localDomains: ['server.example'],
  localDefaults: { see: true, invoke: false },
  grants: [
    invokeGrant('bob@server.example', null),
    invokeGrant('bob@server.example', VAULT),
    invokeGrant('alice@example.com', WEATHER, 'forecast.get'),
    { subjectKind: 'principal', subject: 'carol@example.com', action: 'see', endpoint: WEATHER, tool: null },
  ],
  endpointPolicies: [{ endpoint: VAULT, hidden: true, restrictedInvocation: false }],
});

export function engineOptions(
  store: GatewayStore,
  clock: FakeClock,
  runtime: ToolRuntime,
  delivered: DeliveryLog,
  overrides: Partial<TaskEngineOptions> = {},
): TaskEngineOptions {
  return {
    store,
    policy: () => POLICY,
    runtimes: new Map([
      [WEATHER, runtime],
      [VAULT, runtime],
    ]),
    deliver: delivered.deliver,
    replayWindowSeconds: 600,
    clock,
    validator: kitValidator(),
    ...overrides,
    // A loaded test machine can stall the validation worker past the production 250 ms budget;
    // these tests are about the engine's rules, not that budget.
    limits: { validationTimeoutMs: 10_000, ...overrides.limits },
  };
}

export function engineKit(overrides: Partial<TaskEngineOptions> = {}): EngineKit {
  const dir = tempStoreDir();
  const clock = new FakeClock(FIXED_NOW);
  const store = dir.open(() => clock.now());
  seedWorld(store);
  const runtime = new ControlledRuntime();
  const delivered = new DeliveryLog();
  const engine = TaskEngine.start(engineOptions(store, clock, runtime, delivered, overrides));
  return {
    dir,
    store,
    clock,
    runtime,
    delivered,
    engine,
    restart(options = {}) {
      return TaskEngine.start(engineOptions(store, clock, runtime, delivered, { ...overrides, ...options }));
    },
    close() {
      engine.close();
      dir.remove();
    },
  };
}

/** The registered hash of a weather version. */
export function weatherHash(store: GatewayStore, version = '1.0.0'): { algo: string; value: string } {
  const stored = store.registrations.version(WEATHER, version);
  if (stored === undefined) throw new Error(`weather ${version} is not registered`);
  return stored.hash;
}

export interface InvokeOptions {
  readonly tool?: string;
  readonly apiVersion?: string;
  readonly argumentsJson?: string;
  readonly requestId?: string;
  readonly deadline?: string;
  readonly hash?: { algo: string; value: string };
}

/** A parsed <invoke/>, through the codec (so the deadline is lexed exactly as on the wire). */
export function invokeRequest(store: GatewayStore, options: InvokeOptions = {}): Invoke {
  const apiVersion = options.apiVersion ?? '1.0.0';
  const known = store.registrations.version(WEATHER, apiVersion)?.hash;
  const element = buildInvoke({
    requestId: options.requestId ?? generateIdentifier('req-'),
    tool: options.tool ?? 'forecast.get',
    apiVersion,
    manifestHash: options.hash ?? known ?? { algo: 'sha-256', value: weatherHash(store).value },
    argumentsJson: options.argumentsJson ?? '{"city":"Riga"}',
    ...(options.deadline === undefined ? {} : { deadline: parseDateTime(options.deadline) }),
  });
  return parseInvoke(element);
}
