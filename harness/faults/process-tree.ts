// Killing a process group is not always enough: some programs move their helpers into sessions
// of their own (the Erlang VM's erl_child_setup and inet_gethost call setsid). Their parent links
// are followed through /proc — before anything is killed, since orphans lose them.
import { readdirSync, readFileSync } from 'node:fs';

/** Pids of every live descendant of `pid` (Linux /proc; none elsewhere). Synchronous: usable at exit. */
export function descendantsOf(pid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return [];
  }
  const children = new Map<number, number[]>();
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid ...": the command may contain spaces and parentheses.
    const [state, ppid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (state === 'Z') continue;
    const parent = Number(ppid);
    const siblings = children.get(parent) ?? [];
    siblings.push(Number(entry));
    children.set(parent, siblings);
  }
  const found: number[] = [];
  const queue = [pid];
  for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
    for (const child of children.get(next) ?? []) {
      found.push(child);
      queue.push(child);
    }
  }
  return found;
}

function signal(target: number, name: NodeJS.Signals): void {
  try {
    process.kill(target, name);
  } catch {
    // ESRCH: already gone.
  }
}

/** `name` to the process group led by `pid` and to every descendant, wherever it moved. */
export function signalProcessTree(pid: number, name: NodeJS.Signals): void {
  const descendants = descendantsOf(pid);
  signal(-pid, name);
  for (const descendant of descendants) signal(descendant, name);
}
