/** agentconf node VERSION TOOL | node --decode NODE: the tool-node codec (#namespaces). */
import {
  decodeCollectionNode,
  decodeToolNode,
  encodeToolNode,
  ToolNodeError,
} from '../../protocol/tool-node.ts';
import { NODE_BASE_TOOL_COLLECTION } from '../../protocol/namespaces.ts';
import { EXIT, UsageError } from '../io.ts';
import type { Command } from '../main.ts';
import { expectPositionals, parseCommandArgs, type CommandSpec } from '../options.ts';

const SPEC = {
  name: 'node',
  summary: 'encode a tool node, or decode a tool or collection node (#namespaces)',
  usage: ['node VERSION TOOL', 'node --decode NODE'],
  options: {
    decode: { type: 'string', valueName: 'NODE', description: 'decode this tool or collection node' },
  },
  example: 'node 1.0.0 get_forecast',
  notes: 'Exit 1 says why a VERSION, TOOL or NODE is not valid.',
} as const satisfies CommandSpec;

export const nodeCommand: Command = {
  spec: SPEC,
  run(args, io) {
    const { values, positionals } = parseCommandArgs(SPEC, args);
    try {
      if (values.decode !== undefined) {
        if (positionals.length > 0) throw new UsageError('--decode takes exactly one NODE');
        if (values.decode.startsWith(`${NODE_BASE_TOOL_COLLECTION}#`)) {
          io.out(`collection node, version ${JSON.stringify(decodeCollectionNode(values.decode))}\n`);
        } else {
          const { version, toolName } = decodeToolNode(values.decode);
          io.out(`tool node, version ${JSON.stringify(version)}, tool ${JSON.stringify(toolName)}\n`);
        }
        return Promise.resolve(EXIT.ok);
      }
      expectPositionals(positionals, 2, 'VERSION and TOOL (or --decode NODE)');
      const [version = '', tool = ''] = positionals;
      io.out(`${encodeToolNode(version, tool)}\n`);
      return Promise.resolve(EXIT.ok);
    } catch (error) {
      if (!(error instanceof ToolNodeError)) throw error;
      io.err(`invalid: ${error.message}\n`);
      return Promise.resolve(EXIT.invalid);
    }
  },
};
