# Upstream sources no reachable registry serves (Strimzi's source, the
# kube-prometheus-stack chart): taken from ../shared/vendor beside the checkout when
# there, after checking its SHA-256, else downloaded from the same release upstream,
# so a user's machine gets the same input. Sourced; defines functions only and logs
# through the caller's log().

# vendor_dir: where the vendored files are (SERDEBENCH_VENDOR overrides).
vendor_dir() { echo "${SERDEBENCH_VENDOR:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/shared/vendor}"; }

# tree_sum DIR: one SHA-256 over every file's path and content under DIR, so two
# archives of the same tree (git archive, GitHub's tarball) compare equal.
tree_sum() { (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -d' ' -f1); }

# vendor_extract FILE SHA256 URL TREE_SUM OUT: the tarball's tree unpacked into OUT
# (its single top directory's contents). FILE from vendor_dir must have SHA256; else
# URL is downloaded and its unpacked tree must have TREE_SUM (empty: the download's
# own SHA-256 must be SHA256). Fails, leaving nothing in OUT, on any mismatch.
vendor_extract() {
  local file="$1" sha="$2" url="$3" want_tree="$4" out="$5" src got tmp
  tmp="$(mktemp -d)"
  src="$(vendor_dir)/$file"
  if [[ -f "$src" ]]; then
    got="$(sha256sum "$src" | cut -d' ' -f1)"
    [[ "$got" == "$sha" ]] || { rm -rf "$tmp"; log "$src has SHA-256 $got, want $sha"; return 1; }
    want_tree=""
  else
    log "$file is not in $(vendor_dir): downloading $url"
    curl -fsSL --retry 3 --max-time 600 -o "$tmp/$file" "$url" || { rm -rf "$tmp"; log "download of $url failed"; return 1; }
    src="$tmp/$file"
    if [[ -z "$want_tree" ]]; then
      got="$(sha256sum "$src" | cut -d' ' -f1)"
      [[ "$got" == "$sha" ]] || { rm -rf "$tmp"; log "$url has SHA-256 $got, want $sha"; return 1; }
    fi
  fi
  mkdir -p "$tmp/x"
  tar xzf "$src" -C "$tmp/x" --strip-components=1 || { rm -rf "$tmp"; log "cannot unpack $src"; return 1; }
  if [[ -n "$want_tree" ]]; then
    got="$(tree_sum "$tmp/x")"
    [[ "$got" == "$want_tree" ]] || { rm -rf "$tmp"; log "$url unpacks to tree $got, want $want_tree"; return 1; }
  fi
  rm -rf "$out" && mkdir -p "$(dirname "$out")" && mv "$tmp/x" "$out"
  rm -rf "$tmp"
}
