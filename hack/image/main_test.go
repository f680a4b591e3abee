package main

import (
	"archive/tar"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/google/go-containerregistry/pkg/v1/layout"
)

// untar unpacks an image tar into a directory for the layout reader.
func untar(t *testing.T, file string) string {
	t.Helper()
	dir := t.TempDir()
	f, err := os.Open(file)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return dir
		}
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, h.Name)
		if h.Typeflag == tar.TypeDir {
			if err := os.MkdirAll(p, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		data, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestBuild builds an image from a real ELF binary (this test's own), twice, and
// reads it back as containerd would: same digest both times, the name containerd
// imports it under, entrypoint, non-root user, OCI labels, and a root filesystem
// with the binary and the nonroot user.
func TestBuild(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	o := options{binary: self, dir: "bin", ref: "example.test/thing:v1", out: filepath.Join(dir, "a.tar"), version: "1.2.3", revision: "abc", arch: "amd64"}
	d1, err := build(o)
	if err != nil {
		t.Fatal(err)
	}
	o.out = filepath.Join(dir, "b.tar")
	d2, err := build(o)
	if err != nil {
		t.Fatal(err)
	}
	if d1 != d2 {
		t.Fatalf("not reproducible: %s then %s", d1, d2)
	}
	idx, err := layout.ImageIndexFromPath(untar(t, o.out))
	if err != nil {
		t.Fatal(err)
	}
	m, err := idx.IndexManifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Manifests) != 1 || m.Manifests[0].Digest != d1 || m.Manifests[0].Annotations["io.containerd.image.name"] != o.ref {
		t.Fatalf("index %+v, want one manifest %s named %s", m.Manifests, d1, o.ref)
	}
	img, err := idx.Image(d1)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := img.ConfigFile()
	if err != nil {
		t.Fatal(err)
	}
	name := filepath.Base(self)
	if ep := cf.Config.Entrypoint; len(ep) != 1 || ep[0] != "/bin/"+name || cf.Config.User != "65532:65532" || cf.OS != "linux" ||
		cf.Config.Labels["org.opencontainers.image.version"] != "1.2.3" || cf.Config.Labels["org.opencontainers.image.revision"] != "abc" {
		t.Fatalf("config: entrypoint %v user %q os %q labels %v", ep, cf.Config.User, cf.OS, cf.Config.Labels)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 1 {
		t.Fatalf("layers %d, %v", len(layers), err)
	}
	rc, err := layers[0].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rc.Close() }()
	files := map[string]*tar.Header{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = h
	}
	for _, want := range []string{"etc/passwd", "etc/group", "tmp/", "home/nonroot/", "bin/" + name} {
		if files[want] == nil {
			t.Errorf("root filesystem lacks %s", want)
		}
	}
	if h := files["bin/"+name]; h != nil && h.Mode != 0o755 {
		t.Errorf("binary mode %o", h.Mode)
	}
	if h := files["tmp/"]; h != nil && h.Mode != 0o1777 {
		t.Errorf("/tmp mode %o", h.Mode)
	}
	if h := files["home/nonroot/"]; h != nil && h.Uid != nonroot {
		t.Errorf("/home/nonroot owned by %d", h.Uid)
	}
}

// TestBuildRefusesNonELF: a script or a macOS binary would not run in the image.
func TestBuildRefusesNonELF(t *testing.T) {
	f := filepath.Join(t.TempDir(), "script")
	if err := os.WriteFile(f, []byte("#!/bin/sh\necho hi\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, err := build(options{binary: f, ref: "x/y:z", out: filepath.Join(t.TempDir(), "o.tar")})
	if err == nil {
		t.Fatal("built an image from a shell script")
	}
}

// TestBuildTree: -tree adds a second layer with the directory's files, modes and
// symbolic links, reproducibly.
func TestBuildTree(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	dir, tree := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(tree, "opt/java/bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(tree, "opt/java/bin/java"), []byte("\x7fELF..."), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("java/bin/java", filepath.Join(tree, "opt/run")); err != nil {
		t.Fatal(err)
	}
	o := options{binary: self, ref: "example.test/tree:v1", out: filepath.Join(dir, "a.tar"), arch: "amd64", tree: tree}
	d1, err := build(o)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(filepath.Join(tree, "opt/java/bin/java"), time.Now(), time.Now().Add(time.Hour)); err != nil {
		t.Fatal(err)
	}
	o.out = filepath.Join(dir, "b.tar")
	if d2, err := build(o); err != nil || d2 != d1 {
		t.Fatalf("not reproducible: %s then %s (%v)", d1, d2, err)
	}
	idx, err := layout.ImageIndexFromPath(untar(t, o.out))
	if err != nil {
		t.Fatal(err)
	}
	img, err := idx.Image(d1)
	if err != nil {
		t.Fatal(err)
	}
	layers, err := img.Layers()
	if err != nil || len(layers) != 2 {
		t.Fatalf("layers %d, %v; want the binary's and the tree's", len(layers), err)
	}
	rc, err := layers[1].Uncompressed()
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = rc.Close() }()
	files := map[string]*tar.Header{}
	tr := tar.NewReader(rc)
	for {
		h, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		files[h.Name] = h
	}
	if h := files["opt/java/bin/java"]; h == nil || h.Mode != 0o755 || h.Uid != 0 {
		t.Errorf("opt/java/bin/java: %+v, want mode 755 owned by root", h)
	}
	if h := files["opt/run"]; h == nil || h.Typeflag != tar.TypeSymlink || h.Linkname != "java/bin/java" {
		t.Errorf("opt/run: %+v, want a symbolic link to java/bin/java", h)
	}
	if files["opt/java/"] == nil {
		t.Error("tree layer lacks its directories")
	}
}
