#!/usr/bin/env bash
# hack/suite-times.sh — where `make test`'s time went: each stage (from
# .state/stage-times.tsv, written by hack/stage.sh), then the slowest Go packages
# (.state/test.log) and e2e tests (.state/e2e.log), so that CI's tail shows it.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
mmss() { printf '%d:%02d' $(($1 / 60)) $(($1 % 60)); }
echo
echo "make test, time per stage:"
echo "| stage | min:s | exit |"
echo "|---|---|---|"
total=0
if [ -f .state/stage-times.tsv ]; then
  while IFS=$'\t' read -r name secs rc; do
    echo "| $name | $(mmss "$secs") | $rc |"
    total=$((total + secs))
  done <.state/stage-times.tsv
fi
echo "| total | $(mmss "$total") | |"
if [ -f .state/test.log ]; then
  echo
  echo "slowest Go packages (wall time; they run two at a time):"
  grep -E '^(ok|FAIL)\s' .state/test.log | awk '{t=$3; sub(/s$/,"",t); if (t+0 > 0) printf "%8.1f s  %s\n", t, $2}' | sort -rn | head -8
fi
if [ -f .state/e2e.log ]; then
  echo
  echo "slowest e2e tests:"
  grep -E '^--- (PASS|FAIL): ' .state/e2e.log | sed -E 's/^--- (PASS|FAIL): ([^ ]+) \(([0-9.]+)s\)/\3 \2 \1/' | sort -rn | head -8 |
    awk '{printf "%8.1f s  %s (%s)\n", $1, $2, $3}'
fi
