// Package libsonnet embeds the default gpuobs catalog, written in Jsonnet.
package libsonnet

import (
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"io/fs"
	"sync"
)

// FS holds the catalog's Jsonnet sources; gpuobs.libsonnet is its entry point.
//
//go:embed *.libsonnet */*.libsonnet
var FS embed.FS

// Entry is the file a catalog evaluation starts from when the user gives no config.
const Entry = "gpuobs.libsonnet"

// SourcesDigest is the SHA-256 of every embedded source, path and content, in path order:
// part of the key under which an evaluation is kept (internal/catalog's evalcache.go).
// Computed once: the sources are compiled in.
var SourcesDigest = sync.OnceValue(func() string {
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
})
