package kept

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// maxPasses is how many passes a Memo's directory holds; the least recently used go first.
const maxPasses = 64

// Memo remembers content that passed a check, as Go's test cache remembers a passing test: an
// empty file in a directory, named by the digest of the check's name, the program that checked
// (its path, size and modification time: a rebuilt gpuobs checks again) and the content.
// Generation runs Prometheus' and Alertmanager's loaders on every rule file and configuration
// it writes; a catalog regenerated unchanged writes the same bytes, and the same program gives
// them the same verdict. NewMemo reads the directory and Save writes it: Run, which the
// generators call, only reads and adds to what was read, so that no generator touches the
// disk. A nil Memo keeps nothing and runs every check.
type Memo struct {
	dir     string
	program string

	mu     sync.Mutex
	passed map[string]bool // the passes in dir when read, and those added since
	used   []string        // the passes found or added since: Save keeps them
}

// NewMemo returns a Memo of the passes kept in dir, or nil (no memo) when dir is "" or the
// running program cannot be found. A directory that cannot be read holds none.
func NewMemo(dir string) *Memo {
	if dir == "" {
		return nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil
	}
	info, err := os.Stat(exe)
	if err != nil {
		return nil
	}
	return memoOf(dir, fmt.Sprintf("%s\x00%d\x00%d", exe, info.Size(), info.ModTime().UnixNano()))
}

// memoOf is the Memo of the passes in dir of the checks program runs.
func memoOf(dir, program string) *Memo {
	m := &Memo{dir: dir, program: program, passed: map[string]bool{}}
	entries, _ := os.ReadDir(dir)
	for _, e := range entries {
		if IsKey(e.Name()) && e.Type().IsRegular() {
			m.passed[e.Name()] = true
		}
	}
	return m
}

// Run returns check(content), or nil without running it when the same content passed the
// check of that name before, run by the same program. A failure is never remembered.
func (m *Memo) Run(name string, content []byte, check func([]byte) error) error {
	if m == nil {
		return check(content)
	}
	key := m.key(name, content)
	m.mu.Lock()
	passed := m.passed[key]
	m.mu.Unlock()
	if !passed {
		if err := check(content); err != nil {
			return err
		}
	}
	m.mu.Lock()
	m.passed[key] = true
	m.used = append(m.used, key)
	m.mu.Unlock()
	return nil
}

// Save keeps in the directory the passes Run found or added, as used now, and prunes it. A
// directory that cannot be written is no error: the next run checks again.
func (m *Memo) Save() {
	if m == nil || len(m.used) == 0 || os.MkdirAll(m.dir, 0o700) != nil {
		return
	}
	for _, key := range m.used {
		path := filepath.Join(m.dir, key)
		if !Used(path) {
			if f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o600); err == nil {
				_ = f.Close()
			}
		}
	}
	Prune(m.dir, maxPasses)
}

// key names the pass of content under the check name.
func (m *Memo) key(name string, content []byte) string {
	h := sha256.New()
	h.Write([]byte(name + "\x00" + m.program + "\x00"))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}
