import { readFile } from 'node:fs/promises';

/**
 * Whether `pid` is a live process. A zombie (exited, not yet reaped — orphans wait for whichever
 * process adopted them) counts as gone: it runs no code and holds no socket.
 */
export async function isProcessAlive(pid: number): Promise<boolean> {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // The state follows the parenthesised command name, which may itself contain spaces.
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z';
  } catch {
    return false;
  }
}

/**
 * Probes until none of `pids` is alive, or fails at the deadline. For processes that are not our
 * children (orphans, processes killed by someone else) there is no exit event to wait for.
 */
export async function waitUntilGone(pids: readonly number[], deadlineMs = 10_000): Promise<void> {
  const deadline = Date.now() + deadlineMs;
  for (;;) {
    const alive = [];
    for (const pid of pids) if (await isProcessAlive(pid)) alive.push(pid);
    if (alive.length === 0) return;
    if (Date.now() > deadline) throw new Error(`still alive after ${deadlineMs} ms: ${alive.join(' ')}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
