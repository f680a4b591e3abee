# Go modules' source, for the scripts that build from one or read files out of it.
# Sourced; defines functions only.

# gomod_dir MODULE[@VERSION]: the module's source directory in Go's module cache,
# downloaded first when it is not there (go list -m gives no Dir then). Without a
# version, the current directory's go.mod decides it.
gomod_dir() {
  GOFLAGS=-mod=mod GOWORK=off go mod download -json "$1" | sed -n 's/.*"Dir": "\(.*\)".*/\1/p'
}
