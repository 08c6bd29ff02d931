#!/bin/sh
# Certifies the reference gateway the way you would certify your own: as a gateway the harness
# does not start. The run starts the servers and serves the conformance tools over MCP, writes
# the connection file and waits; this script then configures and starts the gateway from that
# file, as a separate process; the run provisions the fixture world over Administrative
# Provisioning (admin-iq) and judges it.
#
#   examples/external-gateway/run.sh [REPORT_FOLDER]
#
# Reports go to REPORT_FOLDER (new or empty), by default reports/external-gateway-<UTC time>;
# the gateway's own output ends up in its logs/external-gateway.log. Exits with the run's code:
# 0 every claimed profile passed, 1 not conformant, 2 invalid input, 3 could not run.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
out=${1:-reports/external-gateway-$(date -u +%Y%m%dT%H%M%SZ)}
work=$(mktemp -d "${TMPDIR:-/tmp}/agentconf-external-XXXXXX")
gateway_pid=
cleanup() {
  if [ -n "$gateway_pid" ]; then kill "$gateway_pid" 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# The run's output comes through a pipe we read line by line: the gateway starts the moment the
# run says it is waiting for it, not after a guessed delay.
mkfifo "$work/run-output"
npx agentconf run --sut "$here/sut.json" --connection-file "$work/connection.json" --out "$out" \
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
  # The locale the default run gives the reference gateway (fixtures/sut/reference-gateway.json),
  # for i18n.locale-independent-matching; sut.json declares it.
  LC_ALL=tr_TR.UTF-8 LANG=tr_TR.UTF-8 \
    npx agentconf gateway --config "$work/gateway/gateway.json" >"$work/gateway.log" 2>&1 &
  gateway_pid=$!
  echo "external gateway: started (pid $gateway_pid), configured from the connection file"
  cat <&3
fi

status=0
wait "$run_pid" || status=$?
if [ -n "$gateway_pid" ]; then
  kill "$gateway_pid" 2>/dev/null || true
  wait "$gateway_pid" 2>/dev/null || true
  gateway_pid=
  if [ -d "$out" ]; then
    mkdir -p "$out/logs"
    cp "$work/gateway.log" "$out/logs/external-gateway.log"
  fi
fi
exit "$status"
