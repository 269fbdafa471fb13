// Package libsonnet embeds the default gpuobs catalog, written in Jsonnet.
package libsonnet

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"strings"
)

// FS holds the catalog's Jsonnet sources; gpuobs.libsonnet is its entry point.
//
//go:embed *.libsonnet lib/*.libsonnet
var FS embed.FS

// Entry is the file a catalog evaluation starts from when the user gives no config.
const Entry = "gpuobs.libsonnet"

// evaluated is the embedded catalog as Jsonnet evaluates it, kept so that a run on the
// embedded catalog is spared the evaluation, and evaluatedFrom the digest of the sources it was
// evaluated from: Cached returns it only while the sources are still those.
// (internal/catalog's TestEmbeddedEvaluationIsCurrent rewrites both with -update.)
//
//go:embed evaluated/catalog.json
var evaluated string

//go:embed evaluated/sources.sha256
var evaluatedFrom string

// EvaluatedPath and DigestPath are where evaluated and its digest are kept, relative to this
// package's directory.
const (
	EvaluatedPath = "evaluated/catalog.json"
	DigestPath    = "evaluated/sources.sha256"
)

// SourcesDigest is the SHA-256 of every embedded source, path and content, in path order.
func SourcesDigest() string {
	h := sha256.New()
	_ = fs.WalkDir(FS, ".", func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := FS.ReadFile(path)
		if err != nil {
			return err
		}
		h.Write([]byte(path + "\x00"))
		h.Write(data)
		h.Write([]byte{0})
		return nil
	})
	return hex.EncodeToString(h.Sum(nil))
}

// Cached is the evaluated embedded catalog when it was evaluated from the sources embedded
// now, and false when they have changed since (then evaluate them).
func Cached() (string, bool) {
	if strings.TrimSpace(evaluatedFrom) != SourcesDigest() {
		return "", false
	}
	return evaluated, true
}
