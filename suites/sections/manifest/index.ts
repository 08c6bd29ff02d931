/**
 * #manifest: the rules of the manifest model a gateway enforces when it registers one — the
 * required members, the https URI rules (whatever the schema's format keyword says), tools with
 * a name and an input schema and names that follow the grammar and do not repeat — while every
 * optional member may be left out or given; and the all-or-nothing visibility of a manifest:
 * whoever may see it gets the whole registered document.
 *
 * Refused manifests may get bad-request or not-acceptable (interp-11) and must leave nothing
 * registered. The defective manifests come from fixtures/manifests/bad/ (re-targeted at fresh
 * versions) or are built here; they are submitted at once, so a gateway whose registration rate
 * limit is lower than a conformance run needs answers resource-constraint, which the cases
 * report as cannot-tell, never as a pass.
 *
 * URLs in a manifest are data: a homepage and an avatar pointing at a canary listener are never
 * fetched while registering or serving discovery (manifest.no-dereference). A tool declaring
 * approvalRequired never runs without an approval the gateway can enforce
 * (manifest.fail-closed-permissions, through the conformance tools' script.approval). A tool's
 * support declarations never switch on a task feature its endpoint does not advertise
 * (manifest.endpoint-features-prevail): not at the tool node, and not in what a task does.
 */
import type { JsonObject } from '../../../protocol/json/json-value.ts';
import { FEATURE, NS_AGENT_API } from '../../../protocol/namespaces.ts';
import { buildManifestRequest, parseManifest } from '../../../protocol/stanza/index.ts';
import { defineSuite } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import {
  expectAnyStanzaError,
  expectDiscoInfo,
  expectStanzaError,
  expectThat,
  expectParsedResult,
  requirePositiveControl,
} from '../../framework/expect.ts';
import { CannotTell, MissingFixture } from '../../framework/verdicts.ts';
import { requireWorld, type CallerRole } from '../../fixtures/reference-world.ts';
import { callerFor, discoInfo } from '../support/discovery.ts';
import { decided, escalating, tooShort } from '../support/escalating.ts';
import {
  discoverableRegistrant,
  expectNoContact,
  readThroughDiscovery,
  registerForDiscovery,
  withCanaryListener,
} from '../support/canary-listener.ts';
import { badManifest, fullManifest, minimalManifest } from '../support/manifests.ts';
import { expectRegistration, freshVersion, registrantFor, withRestore } from '../support/provisioning.ts';
import { INVALID_MANIFEST, expectRefusals, type RefusalVector } from '../support/refusals.ts';
import { expectLedgerUntouched, freshLedgerKey } from '../support/ledger.ts';
import { inputRequestId, isTerminalEvent, terminalPayload } from '../support/task-events.ts';
import { expectAccepted } from '../support/task-replies.ts';
import { TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';

/** The task features a tool may declare, by the manifest member that declares each. */
const DECLARABLE = [
  ['progress', FEATURE.taskProgress],
  ['cancel', FEATURE.taskCancel],
  ['input', FEATURE.taskInput],
] as const;

/** A vector from fixtures/manifests/bad/, re-targeted at the registrant's JID and a fresh version. */
function fixture(name: string, label: string): RefusalVector {
  return { label, text: (jid, version) => badManifest(name, jid, version) };
}

/** A vector built from the minimal valid manifest by `edit`. */
function edited(label: string, edit: (manifest: JsonObject & { agent: JsonObject }) => void): RefusalVector {
  return {
    label,
    text: (jid, version) => {
      const manifest = minimalManifest(jid, version) as JsonObject & { agent: JsonObject };
      edit(manifest);
      return JSON.stringify(manifest);
    },
  };
}

function withHomepage(label: string, homepage: string): RefusalVector {
  return edited(label, (manifest) => {
    manifest.agent['homepage'] = homepage;
  });
}

function withTool(label: string, tool: JsonObject): RefusalVector {
  return edited(label, (manifest) => {
    manifest['tools'] = [tool];
  });
}

const REQUIRED_MEMBERS: readonly RefusalVector[] = [
  edited('no manifestSpecVersion', (manifest) => {
    delete manifest['manifestSpecVersion'];
  }),
  fixture('schema.const', 'manifestSpecVersion "1"'),
  {
    ...edited('no agent.jid', (manifest) => {
      delete manifest.agent['jid'];
    }),
    // Without a claim, whose endpoint it is cannot be decided: a refusal as unauthorized is fine too.
    conditions: () => [...INVALID_MANIFEST, 'forbidden', 'not-allowed'],
  },
  edited('no agent.name', (manifest) => {
    delete manifest.agent['name'];
  }),
  fixture('schema.required', 'no agent.version'),
  edited('no tools array', (manifest) => {
    delete manifest['tools'];
  }),
];

/** The URI rules of #manifest; the port range is left out (RFC 3986 does not bound it). */
const URI_RULES: readonly RefusalVector[] = [
  fixture('uri.userinfo', 'userinfo in avatarUrl'),
  fixture('uri.empty-host', 'an empty host in homepage'),
  fixture('uri.bad-port', 'a non-numeric port in homepage'),
  fixture('uri.invalid-character', 'a space in avatarUrl'),
  fixture('uri.bad-percent-encoding', 'a bad percent-encoding in avatarUrl'),
  fixture('uri.bad-ip-literal', 'a malformed IPv6 literal in homepage'),
  fixture('uri.fragment', 'a fragment in homepage (not an absolute URI)'),
  withHomepage('an upper-case HTTPS scheme in homepage', 'HTTPS://agentconf.example/'),
  withHomepage('an http scheme in homepage', 'http://agentconf.example/'),
];

const SCHEMA_RULES: readonly RefusalVector[] = [
  fixture('schema.additionalProperties', 'an unknown top-level member'),
  fixture('schema.pattern', 'a version outside the version grammar'),
  fixture('schema.type', 'tools that is an object'),
  fixture('schema.maxLength', 'an agent.name over 128 characters'),
  fixture('schema.minimum', 'defaultTimeoutSeconds 0'),
  fixture('schema.uniqueItems', 'a repeated tag'),
];

/** A vector whose agent.version is `mangle` of the fresh version (nothing a rerun meets). */
function withVersion(label: string, mangle: (fresh: string) => string): RefusalVector {
  return {
    label,
    text: (jid, version) => {
      const manifest = minimalManifest(jid, version) as JsonObject & { agent: JsonObject };
      manifest.agent['version'] = mangle(version);
      return JSON.stringify(manifest);
    },
  };
}

/** Versions just outside the #namespaces grammar: 1 to 64 unreserved URI characters. */
const VERSION_GRAMMAR: readonly RefusalVector[] = [
  withVersion('an empty version', () => ''),
  withVersion('a 65-character version', (fresh) => fresh.padEnd(65, '~')),
  withVersion('a space in the version', (fresh) => `${fresh} beta`),
  withVersion('a "/" in the version', (fresh) => `${fresh}/2`),
  withVersion('a "+" in the version', (fresh) => `${fresh}+build`),
  withVersion('a percent-encoding in the version', (fresh) => `${fresh}%41`),
  withVersion('a non-ASCII letter in the version', (fresh) => `${fresh}\u00e9`),
];

/** The manifest's `agent.jid`, `version` and hash must come back in <registered/>. */
async function expectRegistered(
  context: CaseContext,
  requirement: RequirementId,
  purpose: string,
  build: (jid: string, version: string) => JsonObject,
  count: number,
): Promise<void> {
  await withRestore(context, async (restorer) => {
    const registrant = await registrantFor(context, purpose);
    for (let n = 0; n < count; n += 1) {
      const version = freshVersion(context);
      await expectRegistration(restorer, registrant, build(registrant.jid, version), requirement);
    }
  });
}

/**
 * How long the task waits before it completes, try by try: its cancellation must meet it running.
 * The last is the one wait that is long enough whatever the machine's load (a task that settles
 * first even then leaves the case unable to tell); the shorter ones come first because the
 * clean-up waits out every task a tool without cancel support runs. The first is about ten times
 * what the start and the cancellation take on a quiet machine; a task that settled first shows
 * in its terminal event, and costs one longer try.
 */
const RUNNING_HOLDS_MS = [100, 400, 3000] as const;

/**
 * Cancelling a running task of `tool`, which has no effective cancel support, is refused with
 * service-unavailable or feature-not-implemented; an acceptance is a warning (interp-38).
 */
async function expectCancelRefused(tasks: TaskSession, tool: string, why: string): Promise<void> {
  const { context } = tasks;
  const outcome = await escalating(
    RUNNING_HOLDS_MS,
    async ({ ms }) => {
      const { accepted } = await tasks.start(tool, {
        steps: [{ wait: { ms, onCancel: 'ignore' } }, { complete: {} }],
      });
      // At the current revision, so that only the missing support can be the reason for a refusal.
      const running = await tasks.awaitEvent(accepted.taskId, 'status');
      const reply = await tasks.cancel(accepted.taskId, running.event.revision);
      if (reply.parsed.type === 'result') {
        context.warn(
          'manifest.endpoint-features-prevail',
          `a cancellation of ${tool} was accepted though ${why} (interp-38)`,
        );
        return decided(undefined);
      }
      // One stream delivers in order: a terminal event sent before this answer has arrived. The
      // cancellation then met a settled task, whose answer says nothing about cancel support.
      const settledFirst = tasks.caller.events.all(accepted.taskId).some(isTerminalEvent);
      if (settledFirst) return tooShort(undefined);
      expectStanzaError(
        reply,
        'manifest.endpoint-features-prevail',
        ['service-unavailable', 'feature-not-implemented'],
        context,
      );
      return decided(undefined);
    },
    (_settled, ms) => {
      tasks.caller.transcript.note(
        `the ${String(ms)} ms task settled before its cancellation was answered: again with a longer wait`,
      );
    },
  );
  if (outcome.kind === 'exhausted') {
    throw new CannotTell(
      `even the ${String(outcome.ms)} ms task settled before its cancellation was answered, so the answer says nothing about ${tool}'s cancel support: the machine is too slow to tell`,
    );
  }
}

export const manifestSuite = defineSuite('manifest', 'Manifest Model', [
  {
    id: 'manifest.required-members',
    requirements: ['manifest.required-members', 'registration-flow.validate-before-commit'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-11'],
    statement:
      'A manifest without manifestSpecVersion "0", agent.jid, agent.name, agent.version or the tools array is refused (bad-request or not-acceptable) and not registered.',
    run: async (context) => {
      await expectRefusals(context, 'manifest.required-members', 'required', REQUIRED_MEMBERS);
    },
  },
  {
    id: 'manifest.optional-members',
    requirements: ['manifest.optional-members-accepted', 'manifest.tool-optional-members-accepted'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-40'],
    statement:
      'A manifest with no optional member at all registers, and so does one with every optional member: agent title, description, vendor, https homepage and avatar (an IPv6 literal, a port, a percent-encoding), implementation, MCP protocol version, and tool title, description, output schema, annotations, execution, _meta, the urn:xmpp:agent-api:0 object and a URI-named extension.',
    run: async (context) => {
      let first = true;
      await expectRegistered(
        context,
        'manifest.optional-members-accepted',
        'optional',
        (jid, version) => {
          const manifest = first ? minimalManifest(jid, version) : fullManifest(jid, version);
          first = false;
          return manifest;
        },
        2,
      );
    },
  },
  {
    id: 'manifest.https-uri-rules',
    requirements: ['manifest.https-uri-rules', 'registration-flow.validate-before-commit'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-11'],
    statement:
      'A homepage or avatar URL that is not an absolute https URI with a lower-case scheme, a non-empty host, no userinfo and valid RFC 3986/9110 components is refused and not registered (nine such URLs).',
    run: async (context) => {
      await expectRefusals(context, 'manifest.https-uri-rules', 'uri', URI_RULES);
    },
  },
  {
    id: 'manifest.tool-required-members',
    requirements: ['manifest.tool-required-members', 'registration-flow.validate-before-commit'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-11'],
    statement: 'A tool without a name, or without an input schema, is refused and not registered.',
    run: async (context) => {
      await expectRefusals(context, 'manifest.tool-required-members', 'tool', [
        withTool('a tool without name', { inputSchema: { type: 'object' } }),
        withTool('a tool without inputSchema', { name: 'echo' }),
      ]);
    },
  },
  {
    id: 'manifest.tool-names',
    requirements: ['manifest.tool-names-unique', 'registration-flow.validate-before-commit'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-11', 'interp-22'],
    statement:
      'A manifest naming two tools alike, or a tool whose name holds a C0 control character, is refused and not registered.',
    run: async (context) => {
      await expectRefusals(context, 'manifest.tool-names-unique', 'names', [
        fixture('tool-name.duplicate', 'two tools named forecast.get'),
        fixture('tool-name.xml-illegal-character', 'U+0001 in a tool name'),
      ]);
    },
  },
  {
    id: 'manifest.schema-rules',
    requirements: ['registration-flow.validate-before-commit'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-11'],
    statement:
      'A manifest the normative manifest JSON Schema rejects (unknown top-level member, version grammar, member types, lengths, minimums, unique tags) is refused before anything is stored.',
    run: async (context) => {
      await expectRefusals(context, 'registration-flow.validate-before-commit', 'schema', SCHEMA_RULES);
    },
  },
  {
    id: 'manifest.version-grammar',
    requirements: ['namespaces.version-grammar'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    interpretations: ['interp-11'],
    statement:
      'A manifest whose agent.version is outside the version grammar (empty, 65 characters, a space, "/", "+", a percent-encoding, a non-ASCII letter) is refused, while one of exactly 64 unreserved characters of every kind registers under that exact version.',
    run: async (context) => {
      await expectRefusals(context, 'namespaces.version-grammar', 'versions', VERSION_GRAMMAR);
      // The upper bound is inclusive and every unreserved character is allowed.
      await expectRegistered(
        context,
        'namespaces.version-grammar',
        'versions',
        (jid, version) => minimalManifest(jid, `${version}_~.-Az`.padEnd(64, '~')),
        1,
      );
    },
  },
  {
    id: 'manifest.all-or-nothing-visibility',
    requirements: ['manifest.all-or-nothing-visibility'],
    profiles: ['tool-discovery'],
    level: 'MUST',
    statement:
      'Local, principal-granted and domain-granted callers who may see an endpoint all get the same complete manifest for each of its versions: the registered canonical bytes under the registered hash.',
    run: async (context) => {
      const world = requireWorld(context);
      const endpoint = world.visibleEndpoint;
      const roles: readonly CallerRole[] = ['local', 'remote', 'remotePeer'];
      for (const role of roles) {
        const caller = await callerFor(context, role);
        for (const manifest of endpoint.versions) {
          const exchange = await caller.exchangeIq(
            endpoint.jid,
            'get',
            buildManifestRequest({ version: manifest.version }),
          );
          const served = expectParsedResult(
            exchange,
            'manifest.all-or-nothing-visibility',
            NS_AGENT_API,
            'manifest',
            parseManifest,
          );
          expectThat(
            exchange.reply.xml,
            'manifest.all-or-nothing-visibility',
            `for the ${role} caller, the whole registered manifest of ${endpoint.jid} ${manifest.version} (${String(manifest.tools.length)} tools) under ${manifest.document.hash.value}`,
            Buffer.from(served.json, 'utf8').equals(manifest.document.bytes) &&
              served.hash.value === manifest.document.hash.value,
          );
        }
      }
    },
  },
  {
    id: 'manifest.no-dereference',
    requirements: ['manifest.no-dereference'],
    profiles: ['self-registration', 'admin-provisioning'],
    level: 'MUST',
    statement:
      'A manifest whose homepage, avatar and description point at a canary listener on this machine is registered, activated when an administrator can, and read through endpoint information, items, the manifest and tool information by local and federated callers, and nothing ever connects to the listener (it can only catch a gateway on this machine, where agentconf run starts it).',
    run: (context) =>
      withRestore(context, (restorer) =>
        withCanaryListener(async (canary) => {
          const registrant = await discoverableRegistrant(context, 'canary');
          const version = freshVersion(context);
          const manifest = minimalManifest(registrant.jid, version) as JsonObject & { agent: JsonObject };
          manifest.agent['homepage'] = canary.url('https', 'homepage');
          manifest.agent['avatarUrl'] = canary.url('https', 'avatar.png');
          manifest.agent['description'] = `More at ${canary.url('http', 'description')}`;
          const active = await registerForDiscovery(restorer, registrant, version, manifest);
          // The local caller sees what the administrator provisions on the gateway's domain
          // (its domain grant covers every endpoint that is not hidden); the federated one may not.
          await readThroughDiscovery(
            await context.callers.local(),
            registrant.jid,
            version,
            ['echo'],
            active,
          );
          await readThroughDiscovery(await context.callers.remote(), registrant.jid, version, ['echo']);
          expectNoContact(
            canary,
            'manifest.no-dereference',
            'homepage, avatarUrl and a URL in the description',
          );
        }),
      ),
  },
  {
    id: 'manifest.approval-fails-closed',
    requirements: ['manifest.fail-closed-permissions'],
    profiles: ['task-execution'],
    level: 'MUST',
    interpretations: ['interp-26'],
    statement:
      'A tool that declares approvalRequired, invoked when no approval the gateway could enforce exists, never runs: the invocation is refused before admission, or the admitted task ends without completing, and the tool’s ledger key stays at 0.',
    run: async (context) => {
      const target = conformanceTarget(context);
      if (!target.manifest.tools.some((tool) => tool.name === 'script.approval')) {
        throw new MissingFixture(
          `${target.jid} hosts no script.approval tool: give it the conformance manifest (docs/conformance-tools.md)`,
        );
      }
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      // The positive control: the same invocation of a tool that needs no approval is admitted.
      requirePositiveControl(
        (
          await tasks.invoke('script', {
            steps: [{ complete: { structuredContent: { value: 'no approval needed' } } }],
          })
        ).exchange,
        `${target.jid} script, which declares no approval, invoked with the same steps`,
      );
      const key = freshLedgerKey(context, 'manifest.approval');
      const { invoke, exchange } = await tasks.invoke('script.approval', {
        ledgerKey: key,
        steps: [{ complete: { structuredContent: { value: 'ran without approval' } } }],
      });
      if (exchange.parsed.type === 'error') {
        expectAnyStanzaError(exchange, 'manifest.fail-closed-permissions', context);
      } else {
        const accepted = expectAccepted(exchange, 'manifest.fail-closed-permissions', invoke);
        const history = await tasks.awaitSettled(accepted.taskId);
        const { state } = terminalPayload(history);
        expectThat(
          history.at(-1)?.stanza.xml ?? '',
          'manifest.fail-closed-permissions',
          'a refusal before admission, or a task that fails without running (interp-26)',
          state !== 'completed',
        );
      }
      await expectLedgerUntouched(
        tasks,
        key,
        'manifest.fail-closed-permissions',
        'the ledger key never incremented (the tool never ran)',
      );
    },
  },
  {
    id: 'manifest.endpoint-features-prevail',
    requirements: ['manifest.endpoint-features-prevail'],
    profiles: ['interactive-tasks'],
    level: 'MUST',
    interpretations: ['interp-05', 'interp-38'],
    statement:
      'No conformance tool node advertises a task feature its endpoint does not; and for each feature the script tool declares but the endpoint does not advertise, a task does without it (no progress event, a refused cancellation, no input request); and cancelling script.plain, which declares no cancel support, is refused with service-unavailable or feature-not-implemented (accepted cancellations and input requests without effective support are warnings, interp-38, interp-05).',
    run: async (context) => {
      const target = conformanceTarget(context);
      const caller = await context.callers.local();
      const tasks = new TaskSession(context, caller, target);
      const endpointInfo = expectDiscoInfo(
        await discoInfo(caller, target.jid),
        'manifest.endpoint-features-prevail',
      );
      const endpointFeatures = new Set(endpointInfo.features);
      for (const tool of target.manifest.tools) {
        const exchange = await discoInfo(caller, target.jid, tool.node);
        const info = expectDiscoInfo(exchange, 'manifest.endpoint-features-prevail');
        const extra = DECLARABLE.filter(
          ([, feature]) => info.features.includes(feature) && !endpointFeatures.has(feature),
        );
        expectThat(
          exchange.reply.xml,
          'manifest.endpoint-features-prevail',
          `${tool.name} advertising no task feature its endpoint lacks (${target.jid} advertises ${[...endpointFeatures].filter((f) => f.startsWith(FEATURE.task)).join(', ') || 'none'})`,
          extra.length === 0,
        );
      }
      const script = target.manifest.tools.find((tool) => tool.name === 'script');
      const unsupported = DECLARABLE.filter(
        ([declaration, feature]) => script?.supports[declaration] === true && !endpointFeatures.has(feature),
      ).map(([declaration]) => declaration);
      if (unsupported.includes('progress')) {
        const { accepted } = await tasks.start('script', {
          steps: [{ progress: { percent: 50 } }, { complete: {} }],
        });
        const history = await tasks.awaitSettled(accepted.taskId);
        expectThat(
          history.map((received) => received.stanza.xml).join('\n'),
          'manifest.endpoint-features-prevail',
          `no progress event: ${target.jid} does not advertise ${FEATURE.taskProgress}`,
          history.every((received) => received.event.type !== 'progress'),
        );
      }
      if (unsupported.includes('cancel')) {
        await expectCancelRefused(tasks, 'script', `${target.jid} does not advertise it`);
      }
      // The converse: the endpoint advertises cancellation, script.plain declares none.
      const plain = target.manifest.tools.find((tool) => tool.name === 'script.plain');
      if (plain !== undefined && !plain.supports.cancel && endpointFeatures.has(FEATURE.taskCancel)) {
        if (script?.supports.cancel === true) {
          // The positive control: the same cancellation of a tool that declares cancel support is accepted.
          const { accepted } = await tasks.start('script', { steps: [{ wait: {} }] });
          const running = await tasks.awaitEvent(accepted.taskId, 'status');
          requirePositiveControl(
            await tasks.cancel(accepted.taskId, running.event.revision),
            `cancelling a running task of script, which declares cancel support`,
          );
        }
        await expectCancelRefused(
          tasks,

          'script.plain',
          'script.plain declares no support',
        );
      }
      if (unsupported.includes('input')) {
        const { accepted } = await tasks.start('script', {
          steps: [
            { input: { question: 'Allowed?', inputSchema: { type: 'object' }, expiresInMs: 60_000 } },
            { complete: { echoInputs: true } },
          ],
        });
        const next = await tasks.awaitInputOrTerminal(accepted.taskId);
        if (next.event.type === 'input_required') {
          context.warn(
            'manifest.endpoint-features-prevail',
            `an input request without ${FEATURE.taskInput} (interp-05)`,
          );
          await tasks.provideInput(accepted.taskId, inputRequestId(next), next.event.revision, {});
        }
        await tasks.awaitSettled(accepted.taskId);
      }
    },
  },
]);
