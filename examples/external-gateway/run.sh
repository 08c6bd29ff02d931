#!/bin/sh
# Certifies the reference gateway the way you would certify your own: as a gateway the harness
# does not start. The run starts the servers and serves the conformance tools over MCP, writes
# the connection file and waits; this script then configures and starts the gateway from that
# file, as a separate process kept running by a small supervisor; the run provisions the fixture
# world over Administrative Provisioning (admin-iq) and judges it, killing and freezing the
# gateway through the commands sut.json declares.
#
#   examples/external-gateway/run.sh [REPORT_FOLDER]
#
# Reports go to REPORT_FOLDER (new or empty), by default reports/external-gateway-<UTC time>;
# the gateway's own output ends up in its logs/external-gateway.log. Exits with the run's code:
# 0 every claimed profile passed, 1 not conformant, 2 invalid input, 3 could not run.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
# The agentconf command of this checkout or installed package, run by node itself: a signal to
# the gateway's process group then reaches the gateway, with no npx wrapper in between.
agentconf="$here/../../bin/agentconf.js"
out=${1:-reports/external-gateway-$(date -u +%Y%m%dT%H%M%SZ)}
work=$(mktemp -d "${TMPDIR:-/tmp}/agentconf-external-XXXXXX")
# sut.json's kill, freeze and thaw commands signal the process group named in this file.
EXTERNAL_GATEWAY_PGID_FILE=$work/gateway.pgid
export EXTERNAL_GATEWAY_PGID_FILE
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

# The gateway in a process group of its own (setsid), so that a signal reaches npx and the node
# process it starts alike; started again whenever it exits, as systemd's Restart=always would,
# until the run is over.
supervise() {
  while [ ! -e "$work/stopping" ]; do
    # Inside the new session the shell's own PID is the process group's ID: it records it, then
    # becomes the gateway.
    LC_ALL=tr_TR.UTF-8 LANG=tr_TR.UTF-8 setsid --wait sh -c \
      'echo "$$" >"$EXTERNAL_GATEWAY_PGID_FILE" && exec node "$1" gateway --config "$2"' \
      gateway "$agentconf" "$work/gateway/gateway.json" >>"$work/gateway.log" 2>&1 || true
  done
}

# The run's output comes through a pipe read line by line: the gateway starts the moment the run
# says it is waiting for it, not after a guessed delay.
mkfifo "$work/run-output"
node "$agentconf" run --sut "$here/sut.json" --connection-file "$work/connection.json" --out "$out" \
  >"$work/run-output" 2>&1 &
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
  mkdir -p "$work/gateway"
  node "$here/gateway-config.mjs" "$work/connection.json" "$work/gateway" >"$work/gateway/gateway.json"
  supervise &
  supervisor_pid=$!
  echo "external gateway: started under a supervisor, configured from the connection file"
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
