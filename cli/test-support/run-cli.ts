/** `agentconf ARGV` in this process, its output collected: what the command tests run. */
import { processIo, type CliIo } from '../io.ts';
import { main } from '../main.ts';

export async function runCli(
  argv: string[],
  /** Sees the standard output so far after each write (a test acting at a point of the run). */
  onOut?: (stdout: string) => void,
): Promise<{ code: number; stdout: string; stderr: string }> {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    out: (text) => {
      stdout += text;
      onOut?.(stdout);
    },
    err: (text) => (stderr += text),
    readFile: processIo.readFile,
  };
  const code = await main(argv, io);
  return { code, stdout, stderr };
}
