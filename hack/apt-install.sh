#!/usr/bin/env bash
# Installs pinned Debian packages (name=version ...) if they are not installed yet.
set -euo pipefail
missing=()
for spec in "$@"; do
  name="${spec%%=*}" want="${spec#*=}"
  have="$(dpkg-query -W -f='${Version}' "$name" 2>/dev/null || true)"
  [[ "$have" == "$want" ]] || missing+=("$spec")
done
((${#missing[@]} == 0)) && exit 0
sudo=""; [[ $(id -u) -eq 0 ]] || sudo="sudo"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
