/**
 * #schemas at invocation: arguments validated the way JSON Schema 2020-12 validates them, through
 * the conformance tool `schema.keywords`, whose input schema is the test (docs/conformance-tools.md).
 * A validator written for an earlier draft, or by hand, goes wrong exactly where 2020-12 differs:
 * keywords beside a $ref were ignored before 2019-09 ($ref now applies beside them), $anchor and
 * $dynamicRef are new, and `format` is an annotation the gateway must not assert.
 */
import type { JsonObject } from '../../../protocol/json/json-value.ts';
import type { Caller } from '../../../harness/driver/index.ts';
import type { CaseDeclaration } from '../../framework/case.ts';
import type { CaseContext } from '../../framework/context.ts';
import { expectStanzaError } from '../../framework/expect.ts';
import { MissingFixture, RequirementViolation } from '../../framework/verdicts.ts';
import type { RequirementId } from '../../registry/requirement-ids.ts';
import { expectAccepted } from '../support/task-replies.ts';
import { TaskSession } from '../support/task-session.ts';
import { conformanceTarget } from '../support/task-target.ts';

const KEYWORDS_TOOL = 'schema.keywords';

/** Arguments one keyword of the tool's schema refuses, and which keyword. */
interface RefusedArguments {
  readonly args: JsonObject;
  readonly because: string;
}

/** Valid through every reference: the sibling, the anchor and two levels of the dynamic reference. */
const VALID_THROUGH_REFERENCES: JsonObject = {
  code: 'abcdefgh',
  country: 'FR',
  tree: { value: 1, children: [{ value: 2, children: [{ value: 3 }] }, { value: 4 }] },
};

const REFUSED_THROUGH_REFERENCES: readonly RefusedArguments[] = [
  {
    args: { code: 'abcdefghi' },
    because: 'maxLength 8 beside the $ref: 2020-12 applies both the reference and its siblings',
  },
  { args: { code: 'ABC' }, because: 'the pattern ^[a-z]+$ of the schema the $ref names' },
  { args: { country: 'France' }, because: 'the pattern ^[A-Z]{2}$ of the schema reached through $anchor' },
  {
    args: { tree: { value: 1, children: [{ value: 2, children: [{ value: 'three' }] }] } },
    because: 'a node two $dynamicRef levels down whose value is not an integer',
  },
  {
    args: { tree: { value: 1, children: [{ value: 2, label: 'x' }] } },
    because: 'additionalProperties false of a node reached through $dynamicRef',
  },
];

/** Strings that are not of their annotated format: valid, since format only annotates (#schemas). */
const OUTSIDE_THEIR_FORMAT: readonly JsonObject[] = [
  { email: 'not an address' },
  { when: 'yesterday at noon' },
  { email: 'a@', when: '2026-13-45T99:99:99' },
];

/** The conformance endpoint with its schema.keywords tool, or the fixture the case misses. */
function keywordsSession(context: CaseContext, caller: Caller): TaskSession {
  const target = conformanceTarget(context);
  if (!target.manifest.tools.some((tool) => tool.name === KEYWORDS_TOOL)) {
    throw new MissingFixture(
      `${target.jid} ${target.version} has no ${KEYWORDS_TOOL} tool: host fixtures/manifests/conformance.json as it is (docs/conformance-tools.md)`,
    );
  }
  return new TaskSession(context, caller, target);
}

async function expectRefused(
  context: CaseContext,
  tasks: TaskSession,
  refused: RefusedArguments,
  requirement: RequirementId,
): Promise<void> {
  const { invoke, exchange } = await tasks.invoke(KEYWORDS_TOOL, refused.args);
  if (exchange.parsed.type === 'result') {
    // The tool completes at once: let the task it should never have had settle before failing.
    await tasks.awaitSettled(expectAccepted(exchange, requirement, invoke).taskId);
    throw new RequirementViolation(
      requirement,
      `<not-acceptable/> for ${JSON.stringify(refused.args)} (${refused.because}), and no task`,
      exchange.reply.xml,
    );
  }
  expectStanzaError(exchange, requirement, 'not-acceptable', context);
}

async function expectAdmitted(
  tasks: TaskSession,
  args: JsonObject,
  requirement: RequirementId,
): Promise<void> {
  const { accepted } = await tasks.start(KEYWORDS_TOOL, args, {}, requirement);
  await tasks.awaitSettled(accepted.taskId);
}

export const argumentKeywordCases: readonly CaseDeclaration<'schemas'>[] = [
  {
    id: 'schemas.same-document-refs-invoke',
    requirements: ['schemas.same-document-refs'],
    profiles: ['task-execution'],
    level: 'MUST',
    statement:
      'A tool whose input schema uses $ref beside a sibling keyword, $anchor, $dynamicRef and $dynamicAnchor admits arguments valid through all of them, and refuses with not-acceptable arguments that break only the sibling, only the referenced schema, only the anchored one, or only a node reached through $dynamicRef.',
    run: async (context) => {
      const tasks = keywordsSession(context, await context.callers.local());
      await expectAdmitted(tasks, VALID_THROUGH_REFERENCES, 'schemas.same-document-refs');
      for (const refused of REFUSED_THROUGH_REFERENCES)
        await expectRefused(context, tasks, refused, 'schemas.same-document-refs');
    },
  },
  {
    id: 'schemas.format-annotation-only',
    requirements: ['rules.target-validates-arguments'],
    profiles: ['task-execution'],
    level: 'MUST',
    statement:
      'Strings that are not of the format their schema names (email, date-time) are valid arguments: in 2020-12 format is an annotation, so the target validating the arguments admits them; a non-string there is still refused with not-acceptable.',
    run: async (context) => {
      const tasks = keywordsSession(context, await context.callers.local());
      for (const args of OUTSIDE_THEIR_FORMAT)
        await expectAdmitted(tasks, args, 'rules.target-validates-arguments');
      await expectRefused(
        context,
        tasks,
        { args: { email: 42 }, because: 'type string beside format' },
        'rules.target-validates-arguments',
      );
    },
  },
];
