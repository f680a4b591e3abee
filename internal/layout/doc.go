// Package layout holds the repository's structural rules as tests: what each
// binary may link (go list -deps) and docs/contributing.md's layout table against the
// packages that exist. It has no code of its own.
package layout
