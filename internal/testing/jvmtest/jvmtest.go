// Package jvmtest gives tests the JVM worker (workers/jvm), built by the project's
// own script (hack/jvm/build.sh, cached by its sources) once per test binary. A
// machine without a JDK 21 or newer, or Maven, fails the test loudly: tests never
// skip.
package jvmtest

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

var (
	once     sync.Once
	launcher string
	err      error
)

// Worker is the JVM worker's command (its launcher, bin/worker-jvm).
func Worker(t testing.TB) []string {
	t.Helper()
	argv, err := Build()
	if err != nil {
		t.Fatal(err)
	}
	return argv
}

// Build is Worker for code outside the test's goroutine, which must not stop it.
func Build() ([]string, error) {
	once.Do(func() {
		_, file, _, _ := runtime.Caller(0)
		cmd := exec.Command(filepath.Join(filepath.Dir(file), "..", "..", "..", "hack", "jvm", "build.sh"))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, cerr := cmd.Output()
		if cerr != nil {
			err = fmt.Errorf("build the JVM worker (hack/jvm/build.sh): %w\n%s", cerr, stderr.String())
			return
		}
		launcher = strings.TrimSpace(string(out))
	})
	if err != nil {
		return nil, err
	}
	return []string{launcher}, nil
}
