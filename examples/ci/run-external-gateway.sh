#!/bin/sh
# `agentconf run` against a gateway the harness does not start, as one CI step (docs/ci.md): CI
# steps run one after another, and the gateway can only be configured once the run has started
# the servers and written the connection file (the component secret and, with
# "conformanceTools": {"mcp": "http"}, the tools URL are new every run). So this script starts
# the run, waits until it says it is waiting for the gateway, starts your gateway's command,
# keeps it running until the run ends, keeps its output with the reports and exits with the run's
# code (0 passed, 1 not conformant, 2 invalid input, 3 could not run).
#
#   AGENTCONF_GATEWAY='COMMAND' sh run-external-gateway.sh --out DIR [agentconf run options]
#
# COMMAND runs under sh in a process group of its own, with these in its environment:
#   AGENTCONF_CONNECTION_FILE   the run's connection file (docs/sut.md, "The connection file")
#   AGENTCONF_GATEWAY_DIR       a folder of its own, kept across restarts (its database, its config)
#   EXTERNAL_GATEWAY_PGID_FILE  holds its process group ID, for the SUT file's kill/freeze/thaw
# It is started again whenever it exits, as a service manager would, so that the crash cases can
# kill it. Its output ends up in DIR/logs/external-gateway.log.
set -eu

usage() {
  printf 'run-external-gateway.sh: %s\n' "$1" >&2
  exit 2
}
[ -n "${AGENTCONF_GATEWAY:-}" ] ||
  usage 'AGENTCONF_GATEWAY is not set: set it to the command that starts your gateway from $AGENTCONF_CONNECTION_FILE'
out=
previous=
for argument in "$@"; do
  case $previous in --out) out=$argument ;; esac
  case $argument in --out=*) out=${argument#--out=} ;; esac
  previous=$argument
done
[ -n "$out" ] || usage 'give --out DIR: the CI job keeps DIR as its artifact, with the gateway output in DIR/logs'

here=$(cd "$(dirname "$0")" && pwd)
# The agentconf of this package, run by node itself: nothing stands between the run and its
# signals, and no registry is asked for a command name.
agentconf="$here/../../bin/agentconf.js"
work=$(mktemp -d "${TMPDIR:-/tmp}/agentconf-external-XXXXXX")
AGENTCONF_CONNECTION_FILE=$work/connection.json
AGENTCONF_GATEWAY_DIR=$work/gateway
EXTERNAL_GATEWAY_PGID_FILE=$work/gateway.pgid
export AGENTCONF_GATEWAY AGENTCONF_CONNECTION_FILE AGENTCONF_GATEWAY_DIR EXTERNAL_GATEWAY_PGID_FILE
supervisor_pid=

stop_gateway() {
  if [ -z "$supervisor_pid" ]; then return; fi
  touch "$work/stopping"
  if [ -s "$EXTERNAL_GATEWAY_PGID_FILE" ]; then
    pgid=$(cat "$EXTERNAL_GATEWAY_PGID_FILE")
    kill -CONT "-$pgid" 2>/dev/null || true
    kill -TERM "-$pgid" 2>/dev/null || true
  fi
  kill -TERM "$supervisor_pid" 2>/dev/null || true
  wait "$supervisor_pid" 2>/dev/null || true
  supervisor_pid=
}
cleanup() {
  stop_gateway
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

supervise() {
  while [ ! -e "$work/stopping" ]; do
    started=$(date +%s)
    # Inside the new session the shell's own PID is the process group's ID: it records it, then
    # becomes the gateway's command.
    setsid --wait sh -c 'echo "$$" >"$EXTERNAL_GATEWAY_PGID_FILE" && exec sh -c "$AGENTCONF_GATEWAY"' \
      >>"$work/gateway.log" 2>&1 || true
    # A command that fails at once would otherwise be restarted in a busy loop until the run
    # gives up waiting for it.
    if [ "$(date +%s)" -le "$started" ]; then sleep 1; fi
  done
}

# The run's output comes through a pipe read line by line: the gateway starts the moment the run
# says it is waiting for it, not after a guessed delay.
mkdir "$AGENTCONF_GATEWAY_DIR"
mkfifo "$work/run-output"
node "$agentconf" run --connection-file "$AGENTCONF_CONNECTION_FILE" "$@" >"$work/run-output" 2>&1 &
run_pid=$!
exec 3<"$work/run-output"
waiting=no
while IFS= read -r line <&3; do
  printf '%s\n' "$line"
  case $line in
    "waiting up to "*) waiting=yes; break ;;
  esac
done

if [ "$waiting" = yes ]; then
  supervise &
  supervisor_pid=$!
  echo "external gateway: started under a supervisor: $AGENTCONF_GATEWAY"
  cat <&3
fi

status=0
wait "$run_pid" || status=$?
stop_gateway
if [ -d "$out" ] && [ -f "$work/gateway.log" ]; then
  mkdir -p "$out/logs"
  cp "$work/gateway.log" "$out/logs/external-gateway.log"
fi
exit "$status"
