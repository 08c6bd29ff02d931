/**
 * agentconf validate-manifest FILE: every rule of #manifest — the normative JSON Schema, the
 * URI, JID, tool-name and extension rules, and tool-schema compilation (#schemas).
 */
import { validateManifestBytes } from '../../protocol/manifest/index.ts';
import { closeSharedValidator } from '../../protocol/tool-schema/index.ts';
import { EXIT, readInput, UsageError } from '../io.ts';
import type { Command } from '../main.ts';

export const validateManifestCommand: Command = {
  name: 'validate-manifest',
  usage: 'validate-manifest FILE',
  summary: 'check a manifest against every #manifest rule',
  async run(args, io) {
    if (args.length !== 1 || args[0]?.startsWith('-') === true)
      throw new UsageError('expected exactly one FILE');
    const path = args[0] ?? '';
    try {
      const validation = await validateManifestBytes(readInput(io, path));
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
