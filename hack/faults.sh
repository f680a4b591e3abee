#!/usr/bin/env bash
# hack/faults.sh -f EXPERIMENT [serdebench run flags...]     (run as root; make faults)
#
# Runs an experiment with spec.faults without Kubernetes: a fresh broker in a network
# namespace behind the rig (hack/calibrate/netns.sh, no added delay), and serdebench
# run with --fault-interface, which applies each trial's network fault to the
# packets the broker sends (internal/netem/engine; docs/faults.md). Everything is torn
# down on exit. Output: the run's table, or what -o asks for, on stdout.
set -euo pipefail
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
REPO=$(cd "$HERE/.." && pwd)
[ "$(id -u)" = 0 ] || { echo "hack/faults.sh: run as root (network namespace, veth, iptables NFQUEUE)" >&2; exit 1; }
# netns.sh needs ip, iptables (NFQUEUE), sysctl, setsid, flock and a JDK.
"$REPO/hack/apt-install.sh" iproute2=6.1.0-3 iptables=1.8.9-2 procps=2:4.0.2-3 >&2
if [ -f "$REPO/.state/calibrate/pids/ns.pid" ] || ip link show sdbk-h >/dev/null 2>&1; then
  echo "hack/faults.sh: removing a killed run's leftovers" >&2
  "$HERE/calibrate/netns.sh" --cleanup >&2
fi
(cd "$REPO" && go build -o bin/serdebench ./cmd/serdebench)
mkdir -p "$REPO/.state/faults"
: "${OUT:=$REPO/.state/faults/run-$(date +%Y%m%d-%H%M%S).txt}"
export OUT
# netns.sh writes the command's output to $OUT and follows it on stdout.
# shellcheck disable=SC2016  # expanded by the inner shell, where netns.sh set them
exec "$HERE/calibrate/netns.sh" 0 -- sh -c 'exec "$0" run --bootstrap "$BOOTSTRAP" --fault-interface "$SERDEBENCH_FAULT_INTERFACE" "$@"' \
  "$REPO/bin/serdebench" "$@"
