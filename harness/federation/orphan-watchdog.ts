// The last line of defence against leftovers: a tiny shell outside our process group that holds a
// pipe from this process. If this process is killed outright (SIGKILL, OOM, a test runner tearing
// down its worker), no JavaScript runs, but the pipe closes and the shell kills every process group
// and removes every directory still registered with it.
import { spawn, type ChildProcessByStdio } from 'node:child_process';
import { Socket } from 'node:net';
import type { Writable } from 'node:stream';

const WATCHDOG_SCRIPT = `
groups=""
dirs=""
forget() { kept=""; for x in $1; do [ "$x" = "$2" ] || kept="$kept $x"; done; }
while IFS= read -r line; do
  case "$line" in
    "+g "*) groups="$groups \${line#+g }" ;;
    "-g "*) forget "$groups" "\${line#-g }"; groups="$kept" ;;
    "+d "*) dirs="$dirs \${line#+d }" ;;
    "-d "*) forget "$dirs" "\${line#-d }"; dirs="$kept" ;;
  esac
done
for g in $groups; do kill -s KILL -- "-$g" 2>/dev/null; done
for d in $dirs; do rm -rf -- "$d"; done
`;

let watchdog: ChildProcessByStdio<Writable, null, null> | undefined;

function watchdogInput(): Writable | undefined {
  if (watchdog?.exitCode === null && watchdog.signalCode === null) return watchdog.stdin;
  try {
    const child = spawn('/bin/sh', ['-c', WATCHDOG_SCRIPT], {
      detached: true,
      stdio: ['pipe', 'ignore', 'ignore'],
    });
    child.on('error', () => (watchdog = undefined));
    child.stdin.on('error', () => (watchdog = undefined));
    // Neither the shell nor its pipe may keep this process alive.
    child.unref();
    const pipe: unknown = child.stdin;
    if (pipe instanceof Socket) pipe.unref();
    watchdog = child;
    return child.stdin;
  } catch {
    return undefined;
  }
}

function send(line: string): void {
  watchdogInput()?.write(`${line}\n`);
}

/** Words are separated by spaces in the watchdog: paths with whitespace cannot be registered. */
function assertNoWhitespace(value: string): void {
  if (/\s/.test(value)) throw new Error(`the orphan watchdog cannot handle ${JSON.stringify(value)}`);
}

/** From now on, process group `pgid` is killed if this process dies without cleaning up. */
export function guardProcessGroup(pgid: number): void {
  send(`+g ${pgid}`);
}

/** `pgid` has been reaped: the watchdog must never signal it again (its id may be reused). */
export function releaseProcessGroup(pgid: number): void {
  send(`-g ${pgid}`);
}

/** From now on, `dir` is removed if this process dies without cleaning up. */
export function guardDirectory(dir: string): void {
  assertNoWhitespace(dir);
  send(`+d ${dir}`);
}

export function releaseDirectory(dir: string): void {
  send(`-d ${dir}`);
}
