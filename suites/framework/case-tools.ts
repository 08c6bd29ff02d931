/**
 * The system tools a case declares (`needs`, case.ts) decide what it is handed: a capability a
 * tool backs reaches only the cases that name the tool, so the table's list of cases per tool
 * (harness/system-tools.ts) is the whole list of its users; and a case whose tool this machine
 * lacks cannot tell, in one sentence naming the tool and the command that installs it.
 */
import { installCommand } from '../../harness/federation/debian-packages.ts';
import { systemTool, type SystemToolId } from '../../harness/system-tools.ts';
import type { ConformanceCase } from './case.ts';
import type { CaseContext, SutControl, SutFacts } from './context.ts';

/** The part of SutControl each tool backs. */
const CAPABILITIES: Readonly<Partial<Record<SystemToolId, keyof SutControl>>> = {
  libfiu: 'storage',
};

/** The cantTell reason of a case whose tool is missing. */
export function missingToolReason(id: SystemToolId): string {
  const tool = systemTool(id);
  return `needs ${tool.name}, which is not installed here: ${installCommand(tool)}`;
}

/** Why the case cannot run on this machine (a declared tool is missing), or undefined. */
export function missingTool(
  testCase: Pick<ConformanceCase, 'needs'>,
  sut: Pick<SutFacts, 'missingTools'>,
): { readonly outcome: 'cantTell'; readonly reason: string } | undefined {
  const missing = (testCase.needs ?? []).find((id) => sut.missingTools?.has(id) === true);
  return missing === undefined ? undefined : { outcome: 'cantTell', reason: missingToolReason(missing) };
}

/** `control` without `key`, its other members (getters included) as they are. */
function without(control: SutControl, key: keyof SutControl): SutControl {
  const members = Object.getOwnPropertyDescriptors(control);
  // eslint-disable-next-line @typescript-eslint/no-dynamic-delete -- the key comes from CAPABILITIES
  delete members[key];
  return Object.create(Object.getPrototypeOf(control) as object | null, members) as SutControl;
}

/** The context a case is handed: without the capabilities of the tools it does not declare. */
export function withDeclaredTools(
  testCase: Pick<ConformanceCase, 'needs'>,
  context: CaseContext,
): CaseContext {
  let control = context.sutControl;
  if (control === undefined) return context;
  for (const [id, key] of Object.entries(CAPABILITIES) as [SystemToolId, keyof SutControl][]) {
    if (testCase.needs?.includes(id) !== true && control[key] !== undefined) control = without(control, key);
  }
  return control === context.sutControl ? context : { ...context, sutControl: control };
}
