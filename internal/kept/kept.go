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
// is never removed.
func Prune(dir string, max int) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	type entry struct {
		name string
		used time.Time
	}
	var all []entry
	for _, e := range entries {
		if !IsKey(e.Name()) {
			continue
		}
		if info, err := e.Info(); err == nil && info.Mode().IsRegular() {
			all = append(all, entry{e.Name(), info.ModTime()})
		}
	}
	if len(all) <= max {
		return
	}
	sort.Slice(all, func(i, j int) bool { return all[i].used.After(all[j].used) })
	for _, e := range all[max:] {
		_ = os.Remove(filepath.Join(dir, e.name))
	}
}
