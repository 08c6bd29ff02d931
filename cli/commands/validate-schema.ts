/** agentconf validate-schema FILE [--direction input|output]: compile a tool schema under #schemas. */
import { JsonRejection } from '../../protocol/json/json-rejection.ts';
import { parseStrictJson } from '../../protocol/json/strict-json.ts';
import {
  closeSharedValidator,
  compileToolSchema,
  ToolSchemaRejection,
} from '../../protocol/tool-schema/index.ts';
import { EXIT, readInput } from '../io.ts';
import type { Command } from '../main.ts';
import { expectPositionals, parseCommandArgs, type CommandSpec } from '../options.ts';

const SPEC = {
  name: 'validate-schema',
  summary: 'check a tool input (default) or output schema against the #schemas rules',
  usage: ['validate-schema FILE'],
  options: {
    direction: {
      type: 'choice',
      valueName: 'D',
      choices: ['input', 'output'],
      default: 'input',
      description: "which of a tool's schemas FILE is",
    },
  },
  example: 'validate-schema output-schema.json --direction output',
  notes: 'Exit 1 names the #schemas or I-JSON rule the schema breaks.',
} as const satisfies CommandSpec;

export const validateSchemaCommand: Command = {
  spec: SPEC,
  async run(args, io) {
    const { values, positionals } = parseCommandArgs(SPEC, args);
    const direction = values.direction;
    expectPositionals(positionals, 1, 'the schema FILE');
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
