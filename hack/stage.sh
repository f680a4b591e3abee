#!/usr/bin/env bash
# hack/stage.sh NAME COMMAND [ARGS...] — runs one stage of `make test`, appends its
# name, seconds and exit code to .state/stage-times.tsv, and on a failure prints
# the time table so far (hack/suite-times.sh) before exiting with the stage's code.
set -uo pipefail
name=$1
shift
mkdir -p .state
start=$(date +%s)
"$@"
rc=$?
printf '%s\t%d\t%d\n' "$name" "$(($(date +%s) - start))" "$rc" >>.state/stage-times.tsv
if [ "$rc" -ne 0 ]; then
  "$(dirname "${BASH_SOURCE[0]}")/suite-times.sh" || true
fi
exit "$rc"
