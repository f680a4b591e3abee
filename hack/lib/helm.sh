# Helm steps shared by the install scripts. Sourced; defines functions only, calls
# the caller's helm() (the pinned helm with its homes and timeout) and log().

# helm_unstick RELEASE NAMESPACE: a release left pending (pending-install,
# -upgrade, -rollback) by an interrupted run blocks every later upgrade: uninstall it
# if it never got further than its first version, else roll it back.
helm_unstick() {
  local status version
  status="$(helm status "$1" -n "$2" -o json 2>/dev/null || true)"
  grep -q '"status":"pending' <<<"$status" || return 0
  version="$(grep -o '"version":[0-9]*' <<<"$status" | tail -1 | cut -d: -f2)"
  if [[ "${version:-1}" -le 1 ]]; then
    log "release $1 is pending: uninstalling it"
    helm uninstall "$1" -n "$2" --wait >/dev/null
  else
    log "release $1 is pending: rolling it back"
    helm rollback "$1" -n "$2" --wait >/dev/null
  fi
}
