/**
 * The model driver: seeded random steps (a principal of the run and an operation) fired at the
 * gateway under test, every reply held against the set of answers the spec model accepts for the
 * world the run provisioned. An answer outside the set is a RequirementViolation naming the
 * model's requirement (a warning when that requirement is a SHOULD); a permitted-but-warned answer
 * is context.warn. fast-check shrinks a failure to its shortest list of steps, printed with every
 * stanza sent and received and the seed that replays it.
 */
import { setTimeout as delay } from 'node:timers/promises';
import fc from 'fast-check';
import type { Caller, IqExchange } from '../../../../harness/driver/index.ts';
import { documentedRateLimitsOf, type DocumentedRateLimits } from '../../../../harness/sut/index.ts';
import type { CaseContext } from '../../../framework/context.ts';
import { expectSameErrorPayload } from '../../../framework/expect.ts';
import { checkHeld } from '../../../framework/evidence.ts';
import { MissingFixture, RequirementViolation } from '../../../framework/verdicts.ts';
import { requirement as registryRequirement } from '../../../registry/registry.ts';
import { REQUIREMENT_IDS, type RequirementId } from '../../../registry/requirement-ids.ts';
import {
  judgeMatchedSet,
  maySee,
  searchBounds,
  endpointOf,
  type Expectation,
  type Principal,
} from '../../../model/index.ts';
import { traverseSearch } from '../search.ts';
import { edgeSteps, stepArbitrary, vocabularyOf, FOREIGN_HASH, type OperationFamily } from './arbitraries.ts';
import { ModelExperiment } from './experiment.ts';
import { describeExpectation, judgeReply, type Judgement } from './judge.ts';
import {
  expectationOf,
  mayAdmit,
  pageKindOf,
  retargeted,
  surfaceOf,
  wireRequestOf,
  type ModelOperation,
  type ModelStep,
} from './operations.ts';
import {
  describeProvisioned,
  provisionGeneratedWorld,
  worldFileEndpoints,
  type PartialToolGrant,
  type ProvisionedWorld,
} from './generated-world.ts';
import { DRIVEN_ROLES, runWorldOf, type DrivenRole, type RunWorld } from './run-world.ts';
import { withRestore, type Restorer } from '../provisioning.ts';
import { requireWorld } from '../../../fixtures/reference-world.ts';

/** A reply outside the model's set, with what was expected and received. */
class ModelMismatch extends Error {
  override readonly name = 'ModelMismatch';
  constructor(
    readonly requirement: RequirementId,
    readonly expected: string,
    readonly received: string,
  ) {
    super(`${requirement}: ${expected}`);
  }
}

function isRequirementId(id: string): id is RequirementId {
  return (REQUIREMENT_IDS as readonly string[]).includes(id);
}

/** Requirements that name each kind of wrong answer, most specific first. */
const REQUIREMENTS_OF_KIND: Readonly<Record<NonNullable<Judgement['kind']>, readonly string[]>> = {
  disclosed: [
    'list-agents.visibility-filter',
    'search.hidden-not-revealed',
    'manifest-retrieval.same-access-as-discovery',
    'invocation.unauthorized-item-not-found',
    'rules.uniform-visibility',
  ],
  count: ['list-agents.count-visible-only', 'search.visibility-filter', 'list-tools.rsm-paging'],
  order: ['list-agents.octet-order', 'search.octet-order', 'list-tools.name-byte-order'],
};

/**
 * The requirement a mismatch cites: of the model's requirements for the operation, the one naming
 * the kind of wrong answer when the judgement tells it, else the first the registry knows.
 */
function citedRequirement(expected: Expectation, kind?: Judgement['kind']): RequirementId {
  const preferred = kind === undefined ? [] : REQUIREMENTS_OF_KIND[kind];
  const cited =
    preferred.find((id) => expected.requirements.includes(id) && isRequirementId(id)) ??
    expected.requirements.find(isRequirementId);
  if (cited === undefined)
    throw new Error(`the model cites no registry requirement for ${expected.operation}`);
  return cited as RequirementId;
}

function isMustLevel(id: RequirementId): boolean {
  return registryRequirement(id).level === 'MUST';
}

export interface ModelCheckOptions {
  readonly family: OperationFamily;
  /** Property runs by default and under --deep; each run is up to `maxSteps` steps. */
  readonly runs: readonly [number, number];
  readonly maxSteps?: number;
  /** false: judge the fixture world only, without provisioning a generated one. */
  readonly generated?: boolean;
}

interface StepRecord {
  readonly step: ModelStep;
  readonly exchanges: IqExchange[];
}

/** Requests a step may send on its surface's bucket: a search pages through its matches first. */
const SEARCH_TRAVERSAL_MAX = 5;

class ModelDriver {
  readonly #context: CaseContext;
  readonly #world: RunWorld;
  readonly #restorer: Restorer;
  readonly #callers = new Map<DrivenRole, Promise<Caller>>();
  readonly #buckets = new Map<string, { readonly tokens: number; readonly at: number }>();
  /** The documented buckets of each role's account: fixed for the run, so resolved once. */
  readonly #documentedLimits = new Map<DrivenRole, DocumentedRateLimits>();
  readonly warnings = new Map<RequirementId, string>();
  #requests = 0;
  transcript: StepRecord[] = [];

  constructor(context: CaseContext, world: RunWorld, restorer: Restorer) {
    this.#context = context;
    this.#world = world;
    this.#restorer = restorer;
  }

  #caller(role: DrivenRole): Promise<Caller> {
    let caller = this.#callers.get(role);
    if (caller === undefined) {
      caller = this.#context.callers[role]().catch((problem: unknown) => {
        // The newest account of the run: a federation of one's own may not have it yet.
        if (role !== 'toolGrantee') throw problem;
        throw new MissingFixture(
          `needs the account ${this.#world.principalOf(role).bare}, whose own grants are the world's per-tool invoke grants, to log in (list it under "accounts" for an external federation, docs/sut.md): ${problem instanceof Error ? problem.message : String(problem)}`,
        );
      });
      this.#callers.set(role, caller);
    }
    return caller;
  }

  /**
   * Paces a step to the rate limit the SUT documents for the step's sender on its surface
   * (#security), so that no rate-limit refusal is ever mistaken for an answer: a mirror of the
   * sender's token bucket, started half full because the run's other cases drew on it too, and
   * waited on when the step would drain it.
   */
  async paceToDocumentedLimit(step: ModelStep): Promise<void> {
    const surface = surfaceOf(step.operation);
    if (surface === undefined) return;
    const bucket = (await this.#documentedLimitsOf(step.role))[surface];
    if (bucket === undefined) return;
    const key = `${step.role} ${surface}`;
    const cost = step.operation.kind === 'search' ? SEARCH_TRAVERSAL_MAX + 2 : 2;
    const now = performance.now();
    const known = this.#buckets.get(key) ?? { tokens: bucket.burst / 2, at: now };
    const tokens = Math.min(bucket.burst / 2, known.tokens + ((now - known.at) / 1_000) * bucket.perSecond);
    const wait = tokens >= cost ? 0 : ((cost - tokens) / bucket.perSecond) * 1_000;
    if (wait > 0) await delay(wait);
    this.#buckets.set(key, { tokens: Math.max(0, tokens - cost), at: performance.now() });
  }

  async #documentedLimitsOf(role: DrivenRole): Promise<DocumentedRateLimits> {
    let limits = this.#documentedLimits.get(role);
    if (limits === undefined) {
      const sender = await this.#caller(role);
      limits = documentedRateLimitsOf(this.#context.sut.limits, sender.bareJid);
      this.#documentedLimits.set(role, limits);
    }
    return limits;
  }

  async #send(record: StepRecord, caller: Caller, operation: ModelOperation): Promise<IqExchange> {
    this.#requests += 1;
    const request = wireRequestOf(
      operation,
      this.#context.sut.gatewayJid,
      `agentconf-model-${String(this.#context.random.seed).padStart(10, '0')}-${String(this.#requests)}`,
    );
    let refused = false;
    try {
      const exchange = await caller.exchangeIq(request.to, request.type, request.payload);
      record.exchanges.push(exchange);
      refused = exchange.parsed.type === 'error';
      return exchange;
    } finally {
      // A registration the model refuses but the gateway took (or whose reply was lost) is
      // removed at the end of the case, so a failing gateway is left as the case found it.
      if (operation.kind === 'admin' && operation.request === 'register' && !refused)
        this.#restorer.track(operation.jid);
    }
  }

  /** An invocation the model would admit gets a hash no manifest has, so nothing starts a task. */
  #admissionSafe(principal: Principal, operation: ModelOperation): ModelOperation {
    if (operation.kind !== 'invoke') return operation;
    const expected = expectationOf(this.#world.model, principal, operation);
    return mayAdmit(expected) ? { ...operation, manifestHash: FOREIGN_HASH } : operation;
  }

  async #searchMatches(
    record: StepRecord,
    caller: Caller,
    principal: Principal,
    nick: string,
  ): Promise<readonly string[]> {
    const traversal = await traverseSearch(
      (rsm) => this.#send(record, caller, { kind: 'search', nick, rsm }),
      Math.max(1, Math.ceil(this.#world.model.endpoints.length / (SEARCH_TRAVERSAL_MAX - 1))),
      'search.legacy-nick',
    );
    const bounds = searchBounds(this.#world.model, principal, nick);
    if (judgeMatchedSet(bounds, traversal.jids) === 'fail') {
      const unseen = traversal.jids.filter((jid) => {
        const endpoint = endpointOf(this.#world.model, jid);
        return endpoint === undefined || !maySee(this.#world.model, principal, endpoint);
      });
      throw new ModelMismatch(
        unseen.length > 0 ? 'search.hidden-not-revealed' : 'search.legacy-nick',
        `the matches of nick ${JSON.stringify(nick)} for ${principal.bare}: all of ${JSON.stringify(bounds.required)}, none outside ${JSON.stringify([...bounds.permitted, ...bounds.tolerated])}`,
        `matched ${JSON.stringify(traversal.jids)}`,
      );
    }
    return traversal.jids;
  }

  async perform(step: ModelStep): Promise<void> {
    const record: StepRecord = { step, exchanges: [] };
    this.transcript.push(record);
    const principal = this.#world.principalOf(step.role);
    const caller = await this.#caller(step.role);
    const operation = this.#admissionSafe(principal, step.operation);
    const matched =
      operation.kind === 'search' && operation.nick !== ''
        ? await this.#searchMatches(record, caller, principal, operation.nick)
        : undefined;
    const expected = expectationOf(this.#world.model, principal, operation, matched);
    const exchange = await this.#send(record, caller, operation);
    const judgement = judgeReply(expected, exchange, pageKindOf(operation));
    const requirement = citedRequirement(expected, judgement.kind);
    if (judgement.verdict === 'fail') {
      throw new ModelMismatch(
        requirement,
        describeExpectation(expected),
        `${exchange.reply.xml}\n(${judgement.reasons.join('; ')})`,
      );
    }
    if (judgement.verdict === 'warn')
      this.warnings.set(requirement, `${expected.operation}: ${judgement.reasons.join('; ')}`);
    else checkHeld(requirement);
    if (expected.sameAsNonexistent && exchange.parsed.type === 'error')
      await this.#compareWithNonexistent(record, caller, operation, exchange);
  }

  /** A refusal about something hidden must be the refusal of something absent, byte for byte. */
  async #compareWithNonexistent(
    record: StepRecord,
    caller: Caller,
    operation: ModelOperation,
    exchange: IqExchange,
  ): Promise<void> {
    if (!('jid' in operation) || endpointOf(this.#world.model, operation.jid) === undefined) return;
    const twin = retargeted(operation, `model-absent@${this.#world.model.domains.gateway}`);
    if (twin === undefined) return;
    const absent = await this.#send(record, caller, twin);
    try {
      expectSameErrorPayload([exchange, absent], 'errors.not-found-equivalence');
    } catch (problem) {
      if (problem instanceof RequirementViolation)
        throw new ModelMismatch(problem.requirement, problem.expected, problem.received);
      throw problem;
    }
  }
}

function formatSteps(records: readonly StepRecord[]): string {
  return records
    .map((record, index) => {
      const stanzas = record.exchanges.map(
        (exchange) => `    sent: ${exchange.requestXml}\n    received: ${exchange.reply.xml}`,
      );
      return `  step ${String(index + 1)}: as ${record.step.role}: ${JSON.stringify(record.step.operation)}\n${stanzas.join('\n')}`;
    })
    .join('\n');
}

/**
 * The roles a family acts as. The tool grantee's own grants are invoke grants only: in any other
 * family it would be one more account with its domain's grants (remotePeer), and its partial grant
 * would add a version to the generated world of every model case.
 */
function drivenRolesOf(family: OperationFamily): readonly DrivenRole[] {
  return family === 'invocation' ? DRIVEN_ROLES : DRIVEN_ROLES.filter((role) => role !== 'toolGrantee');
}

/**
 * Runs random steps of `family` against the gateway and judges each reply with the model, over the
 * run's fixture world plus a generated world the administrator provisions for the case (when the
 * SUT offers Administrative Provisioning; removed at the end). Throws RequirementViolation for the
 * shortest failing list of steps; MissingFixture when the run's world cannot be given to the model.
 */
export async function checkAgainstModel(context: CaseContext, options: ModelCheckOptions): Promise<void> {
  // cantTell before anything is provisioned when the run's world cannot be had
  const grantEdges = grantEdgesOf(context, runWorldOf(context, [], drivenRolesOf(options.family)));
  const experiment = new ModelExperiment(context);
  const worldSeed = experiment.nextSeed();
  await withRestore(context, async (restorer) => {
    const generated =
      options.generated === false
        ? undefined
        : await provisionGeneratedWorld(context, restorer, worldSeed, grantEdges);
    await checkWorld(context, options, generated, restorer, experiment);
  });
}

/**
 * The run's endpoints some role may invoke only some tools of, with the names granted: the generated
 * world adds a version to each whose tool names lengthen the granted ones, and reuses those names.
 */
function grantEdgesOf(
  context: CaseContext,
  world: RunWorld,
): { readonly partial: PartialToolGrant[]; readonly named: string[] } {
  const fixture = requireWorld(context);
  const granted = new Map<string, Set<string>>();
  for (const grant of world.model.grants) {
    for (const [jid, tools] of grant.invoke) {
      const endpoint = fixture.endpoints.find((candidate) => candidate.jid === jid);
      const all = endpoint?.versions.flatMap((manifest) => manifest.tools.map((tool) => tool.name)) ?? [];
      if (tools === 'all' || all.every((name) => tools.has(name))) continue;
      granted.set(jid, new Set([...(granted.get(jid) ?? []), ...tools]));
    }
  }
  // One tool name of every endpoint each role is granted tools of: the generated world's
  // name-sharing endpoint offers them all again, where no grant names them.
  const named = new Set<string>();
  for (const grant of world.model.grants)
    for (const tools of grant.invoke.values())
      if (tools !== 'all') {
        const first = [...tools].toSorted()[0];
        if (first !== undefined) named.add(first);
      }
  const partial = [...granted].flatMap(([jid, tools]) => {
    const manifest = fixture.endpoints.find((endpoint) => endpoint.jid === jid)?.active?.value;
    return manifest === undefined || tools.size === 0 ? [] : [{ jid, manifest, granted: [...tools] }];
  });
  return { partial, named: [...named] };
}

async function checkWorld(
  context: CaseContext,
  options: ModelCheckOptions,
  generated: ProvisionedWorld | undefined,
  restorer: Restorer,
  experiment: ModelExperiment,
): Promise<void> {
  const world = runWorldOf(
    context,
    generated === undefined ? [] : worldFileEndpoints(generated),
    drivenRolesOf(options.family),
  );
  if (world.model.endpoints.length === 0)
    throw new MissingFixture(
      'the run provisioned no endpoint, so the model has nothing to judge answers about',
    );
  const principalOf = (role: DrivenRole): Principal => world.principalOf(role);
  // The case's own endpoints; a version added to a run endpoint leaves that endpoint the run's.
  const runJids = new Set(requireWorld(context).endpoints.map((endpoint) => endpoint.jid));
  const scratch = (generated?.endpoints ?? [])
    .map((endpoint) => endpoint.jid)
    .filter((jid) => !runJids.has(jid));
  const vocabulary = vocabularyOf(world.model, world.roles, principalOf, scratch);
  // The edges run first on every seed, each alone; the sampled runs follow (fast-check counts
  // examples within numRuns).
  const examples = edgeSteps(world.model, vocabulary, options.family, principalOf).map(
    (step) => [[step]] as [ModelStep[]],
  );
  const numRuns = examples.length + context.budget.iterations(...options.runs);
  const seed = experiment.nextSeed();
  const driver = new ModelDriver(context, world, restorer);
  let failure: { readonly mismatch: ModelMismatch; readonly steps: StepRecord[] } | undefined;
  const property = fc.asyncProperty(
    fc.array(stepArbitrary(vocabulary, options.family), { minLength: 1, maxLength: options.maxSteps ?? 3 }),
    async (steps) => {
      driver.transcript = [];
      try {
        for (const step of steps) {
          await driver.paceToDocumentedLimit(step);
          await driver.perform(step);
        }
      } catch (problem) {
        if (!(problem instanceof ModelMismatch)) throw problem;
        failure = { mismatch: problem, steps: driver.transcript };
        throw problem;
      }
    },
  );
  const details = await fc.check(property, { seed, numRuns, examples });
  context.budget.ran(Math.min(numRuns, details.numRuns));
  if (details.failed) {
    if (failure === undefined)
      throw details.errorInstance instanceof Error
        ? details.errorInstance
        : new Error(String(details.errorInstance));
    const where = `${experiment.describe()}, fast-check seed ${String(seed)}, path ${details.counterexamplePath ?? '?'}, ${String(details.numShrinks)} shrink(s)`;
    const { mismatch, steps } = failure;
    const replay = `replay: these steps, in order: ${JSON.stringify(steps.map((record) => record.step))}`;
    const received = [
      ...(generated === undefined ? [] : [describeProvisioned(generated)]),
      formatSteps(steps),
      `  → ${mismatch.received}`,
      replay,
      `(${where})`,
    ].join('\n');
    if (isMustLevel(mismatch.requirement)) {
      throw new RequirementViolation(
        mismatch.requirement,
        mismatch.expected,
        received,
        `${mismatch.requirement}: an answer outside the model's set (${where})`,
      );
    }
    context.warn(mismatch.requirement, `${mismatch.expected}\nreceived:\n${received}`);
  }
  for (const [requirement, message] of driver.warnings) context.warn(requirement, message);
}
