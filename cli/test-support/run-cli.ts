/** `agentconf ARGV` in this process, its output collected: what the command tests run. */
import { processIo, type CliIo } from '../io.ts';
import { main } from '../main.ts';

export async function runCli(argv: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    out: (text) => (stdout += text),
    err: (text) => (stderr += text),
    readFile: processIo.readFile,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}
