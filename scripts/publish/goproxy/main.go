// Command goproxy writes one version of a Go module into a folder laid out as the GOPROXY protocol serves it
// (`go help goproxy`: <module>/@v/list, <version>.info, .mod, .zip), which `GOPROXY=file://<folder>` or any static HTTP
// server of the folder serves to `go get`. scripts/publish/go.ts runs it for the Go SDK.
//
//	goproxy [-check] <folder> <module> <version> <repository> <revision> <subdir>
//
// The module's files are those git holds in <subdir> at <revision> of <repository>, zipped by golang.org/x/mod/zip's
// CreateFromDir from `git archive`: the zip `go mod download` makes of the tag, with Go's own checks of file names and sizes. A version
// the folder already holds is kept as it is, as a module proxy never changes a published version: the same files
// (the same go.sum hash, golang.org/x/mod/sumdb/dirhash) are "present"; other files are refused.
//
// Prints one word: "published", "present", or with -check "missing" (nothing written). Exit status 3 when the
// folder holds the version with other files; 1 on any other error.
package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/module"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"
)

func main() {
	check := flag.Bool("check", false, "say whether the version is there; write nothing")
	flag.Parse()
	if flag.NArg() != 6 {
		fmt.Fprintln(os.Stderr, "usage: goproxy [-check] <folder> <module> <version> <repository> <revision> <subdir>")
		os.Exit(1)
	}
	a := flag.Args()
	status, err := publish(*check, a[0], module.Version{Path: a[1], Version: a[2]}, a[3], a[4], a[5])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		if errors.Is(err, errDiffers) {
			os.Exit(3)
		}
		os.Exit(1)
	}
	fmt.Println(status)
}

var errDiffers = errors.New("differs")

func publish(check bool, folder string, version module.Version, repository, revision, subdir string) (string, error) {
	escaped, err := module.EscapePath(version.Path)
	if err != nil {
		return "", err
	}
	escapedVersion, err := module.EscapeVersion(version.Version)
	if err != nil {
		return "", err
	}
	dir := filepath.Join(folder, filepath.FromSlash(escaped), "@v")
	base := filepath.Join(dir, escapedVersion)
	tmp, err := os.MkdirTemp("", "goproxy-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	zipPath := filepath.Join(tmp, "module.zip")
	zipFile, err := os.Create(zipPath)
	if err != nil {
		return "", err
	}
	// The files of the commit, as `git archive` gives them (modzip.CreateFromVCS would do the same but does not
	// recognise a git worktree, whose .git is a file).
	source := filepath.Join(tmp, "source")
	if err := os.Mkdir(source, 0o755); err != nil {
		return "", err
	}
	archive := exec.Command("sh", "-c", `git -C "$1" archive --format=tar "$2" | tar -x -C "$3"`, "sh", repository, revision+":"+filepath.ToSlash(subdir), source)
	if out, err := archive.CombinedOutput(); err != nil {
		return "", fmt.Errorf("git archive %s:%s of %s: %w: %s", revision, subdir, repository, err, out)
	}
	if err := modzip.CreateFromDir(zipFile, version, source); err != nil {
		zipFile.Close()
		return "", fmt.Errorf("zipping %s of %s at %s: %w", subdir, repository, revision, err)
	}
	if err := zipFile.Close(); err != nil {
		return "", err
	}
	if _, err := os.Stat(base + ".zip"); err == nil {
		have, err := dirhash.HashZip(base+".zip", dirhash.Hash1)
		if err != nil {
			return "", err
		}
		want, err := dirhash.HashZip(zipPath, dirhash.Hash1)
		if err != nil {
			return "", err
		}
		if have != want {
			return "", fmt.Errorf("%w: %s already holds %s@%s with other files (%s, these are %s): a published version never changes; release a new version", errDiffers, folder, version.Path, version.Version, have, want)
		}
		return "present", nil
	} else if !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	if check {
		return "missing", nil
	}
	goMod, err := git(repository, "show", revision+":"+filepath.ToSlash(filepath.Join(subdir, "go.mod")))
	if err != nil {
		return "", err
	}
	seconds, err := git(repository, "log", "-1", "--format=%ct", revision)
	if err != nil {
		return "", err
	}
	var unix int64
	if _, err := fmt.Sscan(string(seconds), &unix); err != nil {
		return "", err
	}
	info, err := json.Marshal(struct{ Version, Time string }{version.Version, time.Unix(unix, 0).UTC().Format(time.RFC3339)})
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	zipBytes, err := os.ReadFile(zipPath)
	if err != nil {
		return "", err
	}
	// The zip last: a reader that finds it finds the rest.
	for _, file := range []struct {
		name string
		data []byte
	}{{base + ".mod", goMod}, {base + ".info", info}, {base + ".zip", zipBytes}} {
		if err := writeAtomically(file.name, file.data); err != nil {
			return "", err
		}
	}
	listed, err := os.ReadFile(filepath.Join(dir, "list"))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return "", err
	}
	versions := strings.Fields(string(listed))
	if !slices.Contains(versions, version.Version) {
		versions = append(versions, version.Version)
	}
	if err := writeAtomically(filepath.Join(dir, "list"), []byte(strings.Join(versions, "\n")+"\n")); err != nil {
		return "", err
	}
	return "published", nil
}

func git(repository string, args ...string) ([]byte, error) {
	var stderr bytes.Buffer
	cmd := exec.Command("git", append([]string{"-C", repository}, args...)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("git %s: %w: %s", strings.Join(args, " "), err, stderr.String())
	}
	return out, nil
}

func writeAtomically(name string, data []byte) error {
	tmp := name + ".tmp"
	if err := os.WriteFile(tmp, data, 0o644); err != nil {
		return err
	}
	return os.Rename(tmp, name)
}
