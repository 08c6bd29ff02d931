/** A launch template filled in with the facts of one run: what ManagedProcess is given. */
import { join } from 'node:path';

import {
  checkTemplate,
  fillJsonTemplate,
  fillTemplate,
  jsonStrings,
  type LaunchFacts,
  type PlaceholderProblem,
} from './placeholders.ts';
import { SutConfigError, type LaunchCommand } from './sut-config.ts';

export interface ExpandedFile {
  readonly name: string;
  /** Inside {dataDir}. */
  readonly path: string;
  readonly content: string;
}

export interface ExpandedLaunch {
  readonly command: string;
  readonly args: readonly string[];
  /** Only what the config adds; the harness's own environment is inherited besides. */
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly files: readonly ExpandedFile[];
}

/**
 * Fills every placeholder of `launch`. Refuses (SutConfigError listing each one) unknown
 * placeholders and placeholders whose fact is missing ({adminJid} without an admin JID).
 */
export function expandLaunch(launch: LaunchCommand, facts: LaunchFacts, source = 'launch'): ExpandedLaunch {
  const problems: PlaceholderProblem[] = [];
  const check = (template: string, path: string): void => {
    problems.push(...checkTemplate(template, path, facts));
  };
  launch.command.forEach((arg, index) => {
    check(arg, `/launch/command/${index}`);
  });
  for (const [name, value] of Object.entries(launch.env)) check(value, `/launch/env/${name}`);
  for (const [name, content] of Object.entries(launch.files)) {
    for (const [template, path] of jsonStrings(content, `/launch/files/${name}`)) check(template, path);
  }
  if (problems.length > 0) throw new SutConfigError(source, problems);

  const [program, ...args] = launch.command.map((arg) => fillTemplate(arg, facts));
  return {
    command: program ?? '',
    args,
    env: Object.fromEntries(
      Object.entries(launch.env).map(([name, value]) => [name, fillTemplate(value, facts)]),
    ),
    cwd: launch.cwd,
    files: Object.entries(launch.files).map(([name, content]) => ({
      name,
      path: join(facts.dataDir, name),
      content:
        typeof content === 'string'
          ? fillTemplate(content, facts)
          : `${JSON.stringify(fillJsonTemplate(content, facts), null, 2)}\n`,
    })),
  };
}
