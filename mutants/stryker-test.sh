#!/bin/sh
# The test StrykerJS runs for each mutant (command runner): a focused agentconf run in the sandbox,
# whose exit code decides (0: survived; anything else: killed). Each exit code is also appended,
# with the active mutant's ID, to $STRYKER_EXIT_LOG (if set), so a kill by exit 2 (usage error) or
# 3 (the harness could not run) can be told from a verdict (1) when the report is triaged.
node bin/agentconf.js run --provider native --seed 15 "$@"
code=$?
if [ -n "$STRYKER_EXIT_LOG" ]; then
  echo "${__STRYKER_ACTIVE_MUTANT__:-dry-run} $code" >>"$STRYKER_EXIT_LOG"
fi
exit $code
