/** agentconf node VERSION TOOL | node --decode NODE: the tool-node codec (#namespaces). */
import { parseArgs } from 'node:util';
import {
  decodeCollectionNode,
  decodeToolNode,
  encodeToolNode,
  ToolNodeError,
} from '../../protocol/tool-node.ts';
import { NODE_BASE_TOOL_COLLECTION } from '../../protocol/namespaces.ts';
import { EXIT, UsageError } from '../io.ts';
import type { Command } from '../main.ts';

export const nodeCommand: Command = {
  name: 'node',
  usage: 'node VERSION TOOL | node --decode NODE',
  summary: 'encode a tool node, or decode a tool or collection node',
  run(args, io) {
    const { values, positionals } = parseArgs({
      args: [...args],
      options: { decode: { type: 'string' } },
      allowPositionals: true,
    });
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
      const [version, tool, ...extra] = positionals;
      if (version === undefined || tool === undefined || extra.length > 0) {
        throw new UsageError('expected VERSION and TOOL');
      }
      io.out(`${encodeToolNode(version, tool)}\n`);
      return Promise.resolve(EXIT.ok);
    } catch (error) {
      if (!(error instanceof ToolNodeError)) throw error;
      io.err(`invalid: ${error.message}\n`);
      return Promise.resolve(EXIT.invalid);
    }
  },
};
