#!/bin/sh
# Certifies the reference gateway the way you would certify your own: as a gateway the harness
# does not start. The run starts the servers and serves the conformance tools over MCP, writes
# the connection file and waits; the gateway is then configured from that file and started as a
# separate process kept running by a small supervisor; the run provisions the fixture world over
# Administrative Provisioning (admin-iq) and judges it, killing, freezing and failing the storage
# of the gateway through the commands sut.json declares (external: kill, freeze, thaw,
# storageFault), and cutting, holding and writing into its component link through the harness's
# fault proxy, which the gateway connects through: every MUST case the default run decides is
# decided here too.
#
#   examples/external-gateway/run.sh [REPORT_FOLDER [agentconf run options]]
#
# Reports go to REPORT_FOLDER (new or empty), by default reports/external-gateway-<UTC time>;
# the gateway's own output ends up in its logs/external-gateway.log. Exits with the run's code:
# 0 every claimed profile passed, 1 not conformant, 2 invalid input, 3 could not run.
#
# It is the CI flow of docs/ci.md with the reference gateway (under libfiu: start-under-libfiu.sh)
# as the gateway command, so that what this example proves is what a CI job runs: for your
# gateway, replace that command with yours.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
ci=$(cd "$here/../ci" && pwd)
out=${1:-reports/external-gateway-$(date -u +%Y%m%dT%H%M%SZ)}
[ "$#" -eq 0 ] || shift
# AGENTCONF_GATEWAY is a shell command: the path goes in single quotes, with any quote in it
# written '\'' so that no folder name can break it.
AGENTCONF_GATEWAY="sh '$(printf '%s' "$here/start-under-libfiu.sh" | sed "s/'/'\\\\''/g")'"
export AGENTCONF_GATEWAY
# AGENTCONF_SUT: another SUT file for the same gateway (the test's variant without the operator's
# commands), default sut.json here.
exec sh "$ci/run-external-gateway.sh" --sut "${AGENTCONF_SUT:-$here/sut.json}" --out "$out" "$@"
