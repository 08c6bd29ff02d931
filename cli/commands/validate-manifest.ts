/**
 * agentconf validate-manifest FILE: every rule of #manifest — the normative JSON Schema, the
 * URI, JID, tool-name and extension rules, and tool-schema compilation (#schemas).
 */
import { validateManifestBytes } from '../../protocol/manifest/index.ts';
import { closeSharedValidator } from '../../protocol/tool-schema/index.ts';
import { EXIT, readInput } from '../io.ts';
import type { Command } from '../main.ts';
import { expectPositionals, parseCommandArgs, type CommandSpec } from '../options.ts';

const SPEC = {
  name: 'validate-manifest',
  summary: 'check a manifest against every #manifest rule',
  usage: ['validate-manifest FILE'],
  options: {},
  example: 'validate-manifest fixtures/manifests/weather-minimal.json',
  notes: 'Exit 1 lists every violation with its rule, JSON path and line.',
} as const satisfies CommandSpec;

export const validateManifestCommand: Command = {
  spec: SPEC,
  async run(args, io) {
    const { positionals } = parseCommandArgs(SPEC, args);
    expectPositionals(positionals, 1, 'the manifest FILE');
    const path = positionals[0] ?? '';
    const bytes = readInput(io, path);
    try {
      const validation = await validateManifestBytes(bytes);
      if (validation.ok) {
        const { agent, tools } = validation.manifest;
        io.out(`valid: ${validation.endpointJid} version ${agent.version}, ${tools.length} tool(s)\n`);
        return EXIT.ok;
      }
      io.err(`invalid: ${path}: ${validation.violations.length} violation(s)\n`);
      for (const violation of validation.violations) {
        const at =
          violation.line === undefined ? '' : ` (line ${violation.line}, column ${violation.column ?? 0})`;
        io.err(
          `  ${violation.rule} at ${violation.path === '' ? '/' : violation.path}${at}: ${violation.message}\n`,
        );
      }
      return EXIT.invalid;
    } finally {
      await closeSharedValidator();
    }
  },
};
