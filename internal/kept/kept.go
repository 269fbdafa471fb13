// Package kept is what gpuobs keeps between runs in its cache directory: entries named by a
// SHA-256 digest, the least recently used pruned first (the catalog's evaluations), and the
// contents that passed a check (Memo).
package kept

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"sort"
	"time"
)

// IsKey reports whether name is an entry's name: a SHA-256 digest in hexadecimal.
func IsKey(name string) bool {
	_, err := hex.DecodeString(name)
	return len(name) == 2*sha256.Size && err == nil
}

// Used reports whether path is a kept entry (a regular file, not a link), and marks it used
// now: pruned last.
func Used(path string) bool {
	if info, err := os.Lstat(path); err != nil || !info.Mode().IsRegular() {
		return false
	}
	now := time.Now()
	_ = os.Chtimes(path, now, now)
	return true
}

// Prune removes the least recently used entries of dir past max; a file not named as an entry
// is never removed. Names of one file (hard links: one entry kept under two keys) are one
// entry, kept or removed together, so max bounds what the directory holds on disk.
func Prune(dir string, max int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	var files []*entry
	for _, e := range entries {
		if !IsKey(e.Name()) {
			continue
		}
		info, err := e.Info()
		if err != nil || !info.Mode().IsRegular() {
			continue
		}
		if f := sameFile(files, info); f != nil {
			f.names = append(f.names, e.Name())
			continue
		}
		files = append(files, &entry{info, []string{e.Name()}})
	}
	if len(files) <= max {
		return
	}
	sort.Slice(files, func(i, j int) bool { return files[i].info.ModTime().After(files[j].info.ModTime()) })
	for _, f := range files[max:] {
		for _, name := range f.names {
			_ = os.Remove(filepath.Join(dir, name))
		}
	}
}

// entry is one kept file and the names it has in the directory.
type entry struct {
	info  os.FileInfo
	names []string
}

// sameFile returns the entry of files that info names too (a hard link), if any.
func sameFile(files []*entry, info os.FileInfo) *entry {
	for _, f := range files {
		if f.info.Size() == info.Size() && os.SameFile(f.info, info) {
			return f
		}
	}
	return nil
}
