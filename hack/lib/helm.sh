# Helm steps shared by the install scripts. Sourced after the caller sets repo;
# defines functions only and logs through the caller's log().

# helm: the pinned helm (SERDEBENCH_HELM) on KUBECONFIG, with its homes under the
# repository's .state, bounded by HELM_BOUND seconds (default 300).
helm() {
  HELM_CACHE_HOME="$repo/.state/helm/cache" HELM_CONFIG_HOME="$repo/.state/helm/config" HELM_DATA_HOME="$repo/.state/helm/data" \
    timeout "${HELM_BOUND:-300}" "$SERDEBENCH_HELM" --kubeconfig "$KUBECONFIG" "$@"
}

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
