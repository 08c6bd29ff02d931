#!/bin/sh
# The gateway command of examples/external-gateway/run.sh: the reference gateway's command
# (examples/ci/start-reference-gateway.sh) under libfiu (fiu-run -x, Debian's fiu-utils), so that
# the external.storageFault commands of sut.json can make its storage fail while it runs, as the
# harness does for a gateway it launches. No failure point is on until such a command turns one
# on. Its PID (the gateway's own, after the execs below) goes to $AGENTCONF_GATEWAY_DIR/gateway.pid,
# where those commands find it; libfiu's control pipes are $AGENTCONF_GATEWAY_DIR/fiu-ctrl-PID.*.
# Without fiu-utils the gateway starts all the same and the storage-fault case cannot tell.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
echo "$$" >"$AGENTCONF_GATEWAY_DIR/gateway.pid"
if command -v fiu-run >/dev/null 2>&1; then
  exec fiu-run -x -f "$AGENTCONF_GATEWAY_DIR/fiu-ctrl" sh "$here/../ci/start-reference-gateway.sh"
fi
exec sh "$here/../ci/start-reference-gateway.sh"
