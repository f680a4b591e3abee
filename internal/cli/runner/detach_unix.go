//go:build unix

package runner

import (
	"os/exec"
	"syscall"
)

// detach runs cmd in a process group of its own: signals sent to serdebench's
// group (a terminal's Ctrl-C) do not reach it.
func detach(cmd *exec.Cmd) { cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true} }
