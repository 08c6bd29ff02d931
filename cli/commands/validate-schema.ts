/** agentconf validate-schema FILE [--direction input|output]: compile a tool schema under #schemas. */
import { parseArgs } from 'node:util';
import { JsonRejection } from '../../protocol/json/json-rejection.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import {
  closeSharedValidator,
  compileToolSchema,
  ToolSchemaRejection,
} from '../../protocol/tool-schema/index.ts';
import { EXIT, readInput, UsageError } from '../io.ts';
import type { Command } from '../main.ts';

export const validateSchemaCommand: Command = {
  name: 'validate-schema',
  usage: 'validate-schema FILE [--direction input|output]',
  summary: 'check a tool input (default) or output schema against the #schemas rules',
  async run(args, io) {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: { direction: { type: 'string', default: 'input' } },
      allowPositionals: true,
    });
    const direction = values.direction;
    if (direction !== 'input' && direction !== 'output')
      throw new UsageError('--direction is input or output');
    if (positionals.length !== 1) throw new UsageError('expected exactly one FILE');
    const path = positionals[0] ?? '';
    const bytes = readInput(io, path);
    try {
      await compileToolSchema(parseStrictJson(bytes), { direction });
      io.out(`valid: ${direction} schema\n`);
      return EXIT.ok;
    } catch (error) {
      if (error instanceof JsonRejection) {
        io.err(`invalid: ${path}: ${error.rule} (${error.classification}): ${error.message}\n`);
        return EXIT.invalid;
      }
      if (error instanceof ToolSchemaRejection) {
        io.err(
          `invalid: ${path}: ${error.rule} at ${error.path === '' ? '/' : error.path}: ${error.message}\n`,
        );
        return EXIT.invalid;
      }
      throw error;
    } finally {
      await closeSharedValidator();
    }
  },
};
