// The layer rule of eslint.boundaries.js fires on an import that points up or sideways, type-only
// imports included, and every top folder holding code is one of the layers it knows.
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ESLint } from 'eslint';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { boundariesConfig, LAYERS } from './eslint.boundaries.js';

const ROOT = import.meta.dirname;
const eslint = new ESLint({
  cwd: ROOT,
  overrideConfigFile: true,
  overrideConfig: [{ languageOptions: { parser: tseslint.parser } }, boundariesConfig],
});

async function boundaryErrors(file: string, source: string): Promise<string[]> {
  const [result] = await eslint.lintText(source, { filePath: join(ROOT, file) });
  return (result?.messages ?? []).filter((m) => m.ruleId === 'boundaries/dependencies').map((m) => m.message);
}

describe('layer boundaries', () => {
  it.each([
    ['harness/violating.ts', "import type { CaseResult } from '../suites/framework/run-case.ts';"],
    ['harness/violating.ts', "import { DEFAULT_LIMITS } from '../reference-gateway/config/limits.ts';"],
    [
      'reference-gateway/violating.ts',
      "import type { Federation } from '../harness/federation/server-provider.ts';",
    ],
    ['reference-gateway/violating.ts', "import { ALL_SUITES } from '../suites/index.ts';"],
    ['protocol/violating.ts', "import { REPO_ROOT } from '../harness/repo-root.ts';"],
    ['suites/violating.ts', "import type { RunResult } from '../runner/run-result.ts';"],
    ['runner/violating.ts', "import { main } from '../cli/main.ts';"],
    ['integration/violating.ts', "import { MUTANTS } from '../mutants/catalog.ts';"],
    ['protocol/violating.ts', "import { checkArtifacts } from '../tools/spec-artifacts/check.ts';"],
    ['suites/violating.ts', "import { extractSpec } from '../tools/spec-artifacts/extract.ts';"],
    ['tools/violating.ts', "import type { Caller } from '../harness/driver/index.ts';"],
    ['reference-bridge/violating.ts', "import { createDriver } from '../harness/driver/index.ts';"],
    [
      'reference-bridge/violating.ts',
      "import { DEFAULT_LIMITS } from '../reference-gateway/config/limits.ts';",
    ],
    ['reference-gateway/violating.ts', "import { startBridge } from '../reference-bridge/bridge.ts';"],
    ['suites/violating.ts', "import { startBridge } from '../reference-bridge/bridge.ts';"],
    ['harness/violating.ts', "import { admit } from '../reference-caller/tasks/invoke-admission.ts';"],
    ['suites/violating.ts', "import { TaskTracker } from '../reference-caller/tasks/task-tracker.ts';"],
    ['reference-caller/violating.ts', "import { startBridge } from '../reference-bridge/bridge.ts';"],
    [
      'reference-caller/violating.ts',
      "import { DEFAULT_LIMITS } from '../reference-gateway/config/limits.ts';",
    ],
    ['reference-caller/violating.ts', "import { createDriver } from '../harness/driver/index.ts';"],
  ])('refuses %s: %s', async (file, source) => {
    expect(await boundaryErrors(file, source)).toHaveLength(1);
  });

  it.each([
    ['suites/allowed.ts', "import type { Caller } from '../harness/driver/index.ts';"],
    ['reference-gateway/allowed.ts', "import { NS } from '../protocol/namespaces.ts';"],
    ['cli/allowed.ts', "import { DEFAULT_LIMITS } from '../reference-gateway/config/limits.ts';"],
    ['mutants/allowed.ts', "import { runAgentconf } from '../integration/variants/run-agentconf.ts';"],
    ['tools/allowed.ts', "import { readXml } from '../protocol/xml/read-xml.ts';"],
    ['reference-bridge/allowed.ts', "import { NS } from '../protocol/namespaces.ts';"],
    ['cli/allowed.ts', "import { startBridge } from '../reference-bridge/bridge.ts';"],
    ['integration/allowed.ts', "import { startBridge } from '../reference-bridge/bridge.ts';"],
    ['reference-caller/allowed.ts', "import { NS } from '../protocol/namespaces.ts';"],
    ['reference-bridge/allowed.ts', "import { admit } from '../reference-caller/tasks/invoke-admission.ts';"],
    [
      'reference-gateway/allowed.ts',
      "import { admit } from '../reference-caller/tasks/invoke-admission.ts';",
    ],
    ['integration/allowed.ts', "import { TaskTracker } from '../reference-caller/tasks/task-tracker.ts';"],
  ])('allows %s: %s', async (file, source) => {
    expect(await boundaryErrors(file, source)).toEqual([]);
  });

  it('knows every top folder that holds TypeScript', () => {
    const dataFolders = new Set(['node_modules', 'fixtures', 'xsd', 'reports', 'docs', 'coverage', 'types']);
    const codeFolders = readdirSync(ROOT).filter(
      (name) =>
        !name.startsWith('.') &&
        !dataFolders.has(name) &&
        statSync(join(ROOT, name)).isDirectory() &&
        readdirSync(join(ROOT, name), { recursive: true }).some((f) => String(f).endsWith('.ts')),
    );
    expect(codeFolders.filter((folder) => !(folder in LAYERS))).toEqual([]);
  });
});
