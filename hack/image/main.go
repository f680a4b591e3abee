// Command image builds serdebench's container images without a Docker engine: a
// static Go binary in one layer, on an empty base, laid out like distroless/static
// (nonroot user 65532, /etc/passwd, CA certificates, a writable /tmp), written as
// an OCI image-layout tar that `ctr images import` and `kind load image-archive`
// accept. The Dockerfile builds the same image for users with Docker.
//
//	go run ./hack/image -binary bin/linux/manager -ref ghcr.io/serdebench/manager:v0.1.0 \
//	    -out .state/images/manager.tar -version 0.1.0 -revision "$(git rev-parse HEAD)"
//
// It prints "<ref>@<manifest digest>". The output is reproducible: file times and the
// image's creation time come from -created (the commit time), not the clock.
package main

import (
	"archive/tar"
	"bytes"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	v1 "github.com/google/go-containerregistry/pkg/v1"
	"github.com/google/go-containerregistry/pkg/v1/empty"
	"github.com/google/go-containerregistry/pkg/v1/layout"
	"github.com/google/go-containerregistry/pkg/v1/mutate"
	"github.com/google/go-containerregistry/pkg/v1/tarball"
	"github.com/google/go-containerregistry/pkg/v1/types"
)

// nonroot is distroless's unprivileged user; worker pods and the operator run as it.
const nonroot = 65532

type options struct {
	binary, dir, ref, out, caCerts string
	tree                           string
	arch                           string
	title, description, source     string
	version, revision, licenses    string
	created                        time.Time
}

func main() {
	var o options
	var created int64
	flag.StringVar(&o.binary, "binary", "", "static Linux binary to put at /<dir>/<basename> as the entrypoint")
	flag.StringVar(&o.dir, "dir", "", "directory for the binary (e.g. bin), where another program expects it; empty: /")
	flag.StringVar(&o.ref, "ref", "", "image reference (name:tag) recorded in the tar for ctr import")
	flag.StringVar(&o.out, "out", "", "output OCI image-layout tar")
	flag.StringVar(&o.tree, "tree", "", "directory whose contents are added at / as a second layer (a runtime the binary starts, e.g. a JRE and jars)")
	flag.StringVar(&o.caCerts, "ca-certificates", "/etc/ssl/certs/ca-certificates.crt", "CA bundle copied to the same path in the image (empty: none)")
	flag.StringVar(&o.title, "title", "", "org.opencontainers.image.title (default: the binary's name)")
	flag.StringVar(&o.description, "description", "", "org.opencontainers.image.description")
	flag.StringVar(&o.source, "source", "https://github.com/serdebench/serdebench", "org.opencontainers.image.source")
	flag.StringVar(&o.version, "version", "", "org.opencontainers.image.version")
	flag.StringVar(&o.revision, "revision", "", "org.opencontainers.image.revision (git commit)")
	flag.StringVar(&o.licenses, "licenses", "Apache-2.0", "org.opencontainers.image.licenses")
	flag.StringVar(&o.arch, "arch", runtime.GOARCH, "the binary's architecture (GOARCH), recorded in the image")
	flag.Int64Var(&created, "created", 0, "creation time, Unix seconds (e.g. the commit time); 0 is the epoch")
	flag.Parse()
	o.created = time.Unix(created, 0).UTC()
	if o.binary == "" || o.ref == "" || o.out == "" {
		fmt.Fprintln(os.Stderr, "image: -binary, -ref and -out are required")
		os.Exit(2)
	}
	digest, err := build(o)
	if err != nil {
		fmt.Fprintf(os.Stderr, "image: %v\n", err)
		os.Exit(1)
	}
	fmt.Printf("%s@%s\n", o.ref, digest)
}

// build writes the image and returns its manifest digest.
func build(o options) (v1.Hash, error) {
	name := filepath.Base(o.binary)
	if o.title == "" {
		o.title = "serdebench-" + name
	}
	layerTar, err := rootfs(o, name)
	if err != nil {
		return v1.Hash{}, err
	}
	layer, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(layerTar)), nil
	}, tarball.WithMediaType(types.OCILayer))
	if err != nil {
		return v1.Hash{}, fmt.Errorf("layer: %w", err)
	}
	img := mutate.MediaType(empty.Image, types.OCIManifestSchema1)
	img = mutate.ConfigMediaType(img, types.OCIConfigJSON)
	img, err = mutate.Append(img, mutate.Addendum{Layer: layer, History: v1.History{
		Created: v1.Time{Time: o.created}, CreatedBy: "hack/image " + name,
	}})
	if err != nil {
		return v1.Hash{}, fmt.Errorf("append layer: %w", err)
	}
	if o.tree != "" {
		treeTar, err := treeLayer(o.tree, o.created)
		if err != nil {
			return v1.Hash{}, err
		}
		tl, err := tarball.LayerFromOpener(func() (io.ReadCloser, error) {
			return io.NopCloser(bytes.NewReader(treeTar)), nil
		}, tarball.WithMediaType(types.OCILayer))
		if err != nil {
			return v1.Hash{}, fmt.Errorf("tree layer: %w", err)
		}
		if img, err = mutate.Append(img, mutate.Addendum{Layer: tl, History: v1.History{
			Created: v1.Time{Time: o.created}, CreatedBy: "hack/image -tree " + filepath.Base(o.tree),
		}}); err != nil {
			return v1.Hash{}, fmt.Errorf("append tree layer: %w", err)
		}
	}
	cf, err := img.ConfigFile()
	if err != nil {
		return v1.Hash{}, fmt.Errorf("config: %w", err)
	}
	cf = cf.DeepCopy()
	cf.Architecture, cf.OS = o.arch, "linux"
	cf.Created = v1.Time{Time: o.created}
	cf.Config.Entrypoint = []string{"/" + path.Join(o.dir, name)}
	cf.Config.User = fmt.Sprintf("%d:%d", nonroot, nonroot)
	cf.Config.WorkingDir = "/"
	cf.Config.Env = []string{"PATH=/usr/local/bin:/usr/bin:/bin", "SSL_CERT_FILE=/etc/ssl/certs/ca-certificates.crt"}
	cf.Config.Labels = map[string]string{
		"org.opencontainers.image.title":       o.title,
		"org.opencontainers.image.description": o.description,
		"org.opencontainers.image.source":      o.source,
		"org.opencontainers.image.version":     o.version,
		"org.opencontainers.image.revision":    o.revision,
		"org.opencontainers.image.licenses":    o.licenses,
		"org.opencontainers.image.created":     o.created.Format(time.RFC3339),
	}
	if img, err = mutate.ConfigFile(img, cf); err != nil {
		return v1.Hash{}, fmt.Errorf("set config: %w", err)
	}
	digest, err := img.Digest()
	if err != nil {
		return v1.Hash{}, fmt.Errorf("digest: %w", err)
	}
	return digest, writeLayoutTar(img, o.ref, o.arch, o.out)
}

// rootfs is the single layer: the directories and files distroless/static provides
// that a Go binary needs, and the binary. Every entry has a fixed time and owner.
func rootfs(o options, name string) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	hdr := func(h *tar.Header) error {
		h.ModTime, h.Format = o.created, tar.FormatPAX
		return tw.WriteHeader(h)
	}
	dir := func(p string, mode int64, uid int) error {
		return hdr(&tar.Header{Typeflag: tar.TypeDir, Name: p + "/", Mode: mode, Uid: uid, Gid: uid})
	}
	file := func(p string, mode int64, data []byte) error {
		if err := hdr(&tar.Header{Typeflag: tar.TypeReg, Name: p, Mode: mode, Size: int64(len(data))}); err != nil {
			return err
		}
		_, err := tw.Write(data)
		return err
	}
	for _, d := range []string{"etc", "etc/ssl", "etc/ssl/certs", "dev", "proc", "sys"} {
		if err := dir(d, 0o755, 0); err != nil {
			return nil, err
		}
	}
	if err := dir("tmp", 0o1777, 0); err != nil {
		return nil, err
	}
	if err := dir("home", 0o755, 0); err != nil {
		return nil, err
	}
	if err := dir("home/nonroot", 0o700, nonroot); err != nil {
		return nil, err
	}
	n := strconv.Itoa(nonroot)
	passwd := "root:x:0:0:root:/root:/sbin/nologin\nnobody:x:65534:65534:nobody:/nonexistent:/sbin/nologin\nnonroot:x:" + n + ":" + n + ":nonroot:/home/nonroot:/sbin/nologin\n"
	group := "root:x:0:\nnobody:x:65534:\nnonroot:x:" + n + ":\n"
	if err := file("etc/passwd", 0o644, []byte(passwd)); err != nil {
		return nil, err
	}
	if err := file("etc/group", 0o644, []byte(group)); err != nil {
		return nil, err
	}
	if o.caCerts != "" {
		ca, err := os.ReadFile(o.caCerts)
		if err != nil {
			return nil, fmt.Errorf("read CA certificates: %w", err)
		}
		if err := file("etc/ssl/certs/ca-certificates.crt", 0o644, ca); err != nil {
			return nil, err
		}
	}
	bin, err := os.ReadFile(o.binary)
	if err != nil {
		return nil, fmt.Errorf("read binary: %w", err)
	}
	if !bytes.HasPrefix(bin, []byte("\x7fELF")) {
		return nil, fmt.Errorf("%s is not a Linux (ELF) binary", o.binary)
	}
	if o.dir != "" {
		if err := dir(o.dir, 0o755, 0); err != nil {
			return nil, err
		}
	}
	if err := file(path.Join(o.dir, name), 0o755, bin); err != nil {
		return nil, err
	}
	if err := tw.Close(); err != nil {
		return nil, fmt.Errorf("close layer: %w", err)
	}
	return buf.Bytes(), nil
}

// treeLayer packs dir's contents as a layer at /: regular files, directories and
// symbolic links with their permission bits, owned by root, at time created, in
// lexical order (reproducible).
func treeLayer(dir string, created time.Time) ([]byte, error) {
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == dir {
			return err
		}
		rel, err := filepath.Rel(dir, p)
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil {
			return err
		}
		h := &tar.Header{Name: filepath.ToSlash(rel), Mode: int64(info.Mode().Perm()), ModTime: created, Format: tar.FormatPAX}
		switch {
		case d.IsDir():
			h.Typeflag, h.Name = tar.TypeDir, h.Name+"/"
			return tw.WriteHeader(h)
		case info.Mode()&fs.ModeSymlink != 0:
			if h.Linkname, err = os.Readlink(p); err != nil {
				return err
			}
			h.Typeflag = tar.TypeSymlink
			return tw.WriteHeader(h)
		case info.Mode().IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			h.Typeflag, h.Size = tar.TypeReg, int64(len(data))
			if err := tw.WriteHeader(h); err != nil {
				return err
			}
			_, err = tw.Write(data)
			return err
		}
		return fmt.Errorf("%s: not a file, directory or symbolic link", p)
	})
	if err == nil {
		err = tw.Close()
	}
	if err != nil {
		return nil, fmt.Errorf("pack %s: %w", dir, err)
	}
	return buf.Bytes(), nil
}

// writeLayoutTar writes img as an OCI image layout, named ref in the annotations
// containerd's importer reads, and packs it into one tar at out.
func writeLayoutTar(img v1.Image, ref, arch, out string) error {
	tmp, err := os.MkdirTemp(filepath.Dir(out), ".oci-")
	if err != nil {
		return fmt.Errorf("temp dir: %w", err)
	}
	defer func() { _ = os.RemoveAll(tmp) }()
	p, err := layout.Write(tmp, empty.Index)
	if err != nil {
		return fmt.Errorf("write layout: %w", err)
	}
	if err := p.AppendImage(img,
		layout.WithAnnotations(map[string]string{
			"io.containerd.image.name":          ref,
			"org.opencontainers.image.ref.name": ref,
		}),
		layout.WithPlatform(v1.Platform{OS: "linux", Architecture: arch}),
	); err != nil {
		return fmt.Errorf("append image: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(out), ".tar-")
	if err != nil {
		return fmt.Errorf("create %s: %w", out, err)
	}
	defer func() { _ = os.Remove(f.Name()) }()
	tw := tar.NewWriter(f)
	err = filepath.WalkDir(tmp, func(p string, d fs.DirEntry, err error) error {
		if err != nil || p == tmp {
			return err
		}
		rel := filepath.ToSlash(strings.TrimPrefix(p, tmp+string(filepath.Separator)))
		if d.IsDir() {
			return tw.WriteHeader(&tar.Header{Typeflag: tar.TypeDir, Name: rel + "/", Mode: 0o755})
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := tw.WriteHeader(&tar.Header{Typeflag: tar.TypeReg, Name: rel, Mode: 0o644, Size: int64(len(data))}); err != nil {
			return err
		}
		_, err = tw.Write(data)
		return err
	})
	if err == nil {
		err = tw.Close()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("pack %s: %w", out, err)
	}
	if err := os.Chmod(f.Name(), 0o644); err != nil {
		return fmt.Errorf("chmod %s: %w", out, err)
	}
	return os.Rename(f.Name(), out)
}
