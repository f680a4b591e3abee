#!/usr/bin/env bash
# Prints, after a failed `go test -v` run (one package or many), what failed and
# why, so the reason is in the last lines of a long log (CI shows the tail):
#   - compiler errors, panics (a test timeout among them) and data races, with
#     the lines after them;
#   - the log lines (JSON manager logs left out) just before each failed
#     package's FAIL line that no test claims: a TestMain's fatal error lands there;
#   - each failed top-level test with the first line of every message it logged.
# Usage: hack/failures.sh LOG
set -euo pipefail
log="${1:?usage: hack/failures.sh LOG}"
grep -E -A12 '^panic:|^WARNING: DATA RACE|^[^ ]+\.go:[0-9]+:[0-9]+: ' "$log" | head -80 || true
awk '
  /^\{/ { next }                                   # structured manager logs
  /^(=== RUN|--- (PASS|SKIP)|PASS$|ok  )/ { tail_n = 0; next }
  /^FAIL$| (INFO|DEBUG) / { next }                 # a package FAIL line alone; slog info lines
  /^FAIL\t/ {
    if (tail_n > 0) { print "=== before " $0 " (last lines no test claims):"; for (i = 1; i <= tail_n; i++) print tail[i] }
    tail_n = 0; next
  }
  /^--- FAIL|^    / { next }
  { if (tail_n == 10) { for (i = 1; i < 10; i++) tail[i] = tail[i + 1]; tail_n = 9 } tail[++tail_n] = substr($0, 1, 400) }
' "$log"
awk '
  /^=== RUN   [^\/]+$/ { name = $3; n = 0; count[name] = 0; next }
  /^    +[A-Za-z0-9_]+\.go:[0-9]+: / { if (name != "") lines[name, ++n] = substr($0, 1, 400); count[name] = n; next }
  /^--- FAIL: [^\/ ]+ / {
    t = $3; print "=== what " t " said (first lines):"
    for (i = 1; i <= count[t]; i++) print lines[t, i]
  }
' "$log"
