/**
 * Before a run launches the gateway: every system tool its selected cases declare (`needs`) is
 * made present the way the providers make Prosody present (federation/debian-packages.ts: as
 * root with apt-get, otherwise not at all). One log line per tool that had to be installed or
 * stays missing; nothing when all were there. Never rejects: a missing tool makes the cases
 * that declared it undecided (the framework says so, naming the tool and the command), it does
 * not stop the run.
 */
import {
  ensureSoftware,
  installCommand,
  MissingSoftware,
  type EnsureOptions,
} from './federation/debian-packages.ts';
import { SYSTEM_TOOLS, systemTool, type SystemTool, type SystemToolId } from './system-tools.ts';

/** What a case declares, as far as the tools go (suites/framework/case.ts). */
export interface ToolNeeds {
  readonly id: string;
  readonly needs?: readonly SystemToolId[];
}

export type EnsureTool = (tool: SystemTool, options: EnsureOptions) => Promise<string>;

/** The tools `cases` declare, in the table's order, each with the IDs of the cases that declare it. */
export function toolsNeededBy(cases: readonly ToolNeeds[]): Map<SystemToolId, string[]> {
  const needed = new Map<SystemToolId, string[]>();
  for (const id of SYSTEM_TOOLS.keys()) {
    const declaring = cases.filter((testCase) => testCase.needs?.includes(id) === true).map((c) => c.id);
    if (declaring.length > 0) needed.set(id, declaring);
  }
  return needed;
}

function caseList(ids: readonly string[]): string {
  return ids.length <= 3
    ? ids.join(', ')
    : `${ids.slice(0, 3).join(', ')} and ${String(ids.length - 3)} more`;
}

/**
 * Ensures every tool `cases` declare; resolves with the ones still missing. `log` gets one line
 * for each tool installed now and each one left missing.
 */
export async function ensureToolsFor(
  cases: readonly ToolNeeds[],
  log: (line: string) => void,
  ensure: EnsureTool = ensureSoftware,
): Promise<ReadonlySet<SystemToolId>> {
  const missing = new Set<SystemToolId>();
  // One after another: installs take the machine-wide apt lock in turn anyway.
  for (const [id, declaring] of toolsNeededBy(cases)) {
    const tool = systemTool(id);
    const forCases = `for ${caseList(declaring)}`;
    try {
      await ensure(tool, {
        onInstall: (packages) => {
          log(
            `system tools: installing ${packages.join(' ')} (${tool.name}, ${forCases}) as root with apt-get`,
          );
        },
      });
    } catch (error) {
      missing.add(id);
      const why = error instanceof MissingSoftware ? error.reason : 'it could not be located';
      log(
        `system tools: ${tool.name} is missing (${why}), so ${caseList(declaring)} cannot tell; install it with: ${installCommand(tool)}`,
      );
    }
  }
  return missing;
}
