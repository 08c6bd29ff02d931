#!/bin/sh
# The gateway command of docs/ci.md's external-gateway job and of examples/external-gateway/run.sh,
# for the reference gateway: writes its config from the run's connection file
# (examples/external-gateway/gateway-config.mjs) and becomes the gateway. Yours does the same for
# your gateway: read the component host, port, domain and secret, the admin JID and the conformance
# tools URL from $AGENTCONF_CONNECTION_FILE, keep state in $AGENTCONF_GATEWAY_DIR, and exec the
# gateway so that signals to the process group reach it.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
node "$here/../external-gateway/gateway-config.mjs" "$AGENTCONF_CONNECTION_FILE" "$AGENTCONF_GATEWAY_DIR" \
  >"$AGENTCONF_GATEWAY_DIR/gateway.json"
# The Turkish locale examples/external-gateway/sut.json declares (external.locale).
LC_ALL=tr_TR.UTF-8 LANG=tr_TR.UTF-8 exec node "$here/../../bin/agentconf.js" gateway --config "$AGENTCONF_GATEWAY_DIR/gateway.json"
