#!/usr/bin/env bash
# Installs pinned Debian packages (name=version ...) if they are not installed yet.
# A version may end in * (name=156.0.8078.*): for packages Debian's security
# archive serves, which drops a version when it publishes the next fix; the
# pattern pins the release and takes the fix served that day.
set -euo pipefail
missing=()
for spec in "$@"; do
  name="${spec%%=*}" want="${spec#*=}"
  have="$(dpkg-query -W -f='${Version}' "$name" 2>/dev/null || true)"
  # shellcheck disable=SC2053  # $want may be a pattern
  [[ "$have" == $want ]] || missing+=("$spec")
done
((${#missing[@]} == 0)) && exit 0
sudo=""; [[ $(id -u) -eq 0 ]] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
