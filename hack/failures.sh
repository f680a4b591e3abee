#!/usr/bin/env bash
# Prints, after a failed `go test -v` run, each failed top-level test with the
# first line of every message it logged (its errors among them), so the reason
# is in the last lines of a long log (CI shows the tail): multi-line dumps
# contribute their first line only.
# Usage: hack/failures.sh LOG
set -euo pipefail
awk '
  /^=== RUN   [^\/]+$/ { name = $3; n = 0; next }
  /^    +[A-Za-z0-9_]+\.go:[0-9]+: / { if (name != "") lines[name, ++n] = substr($0, 1, 400); count[name] = n; next }
  /^--- FAIL: [^\/ ]+ / {
    t = $3; print "=== what " t " said (first lines):"
    for (i = 1; i <= count[t]; i++) print lines[t, i]
  }
' "${1:?usage: hack/failures.sh LOG}"
