package kept

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
)

// maxPasses is how many passes a Memo's directory holds; the least recently used go first.
const maxPasses = 64

// Memo remembers content that passed a check, as Go's test cache remembers a passing test: an
// empty file in a directory, named by the digest of the check's name, the program that checked
// (its path, size and modification time: a rebuilt gpuobs checks again) and the content.
// Generation runs Prometheus' and Alertmanager's loaders on every rule file and configuration
// it writes; a catalog regenerated unchanged writes the same bytes, and the same program gives
// them the same verdict. A nil Memo keeps nothing and runs every check.
type Memo struct {
	dir     string
	program string
}

// NewMemo returns a Memo keeping passes in dir, or nil (no memo) when dir is "" or the running
// program cannot be found.
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
	return &Memo{dir: dir, program: fmt.Sprintf("%s\x00%d\x00%d", exe, info.Size(), info.ModTime().UnixNano())}
}

// Run returns check(content), or nil without running it when the same content passed the
// check of that name before, run by the same program. A pass is kept; a failure never is. A
// directory that cannot be read or written is no error: the check runs.
func (m *Memo) Run(name string, content []byte, check func([]byte) error) error {
	if m == nil {
		return check(content)
	}
	path := filepath.Join(m.dir, m.key(name, content))
	if Used(path) {
		return nil
	}
	if err := check(content); err != nil {
		return err
	}
	if os.MkdirAll(m.dir, 0o700) == nil {
		if f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o600); err == nil && f.Close() == nil {
			Prune(m.dir, maxPasses)
		}
	}
	return nil
}

// key names the pass of content under the check name.
func (m *Memo) key(name string, content []byte) string {
	h := sha256.New()
	h.Write([]byte(name + "\x00" + m.program + "\x00"))
	h.Write(content)
	return hex.EncodeToString(h.Sum(nil))
}
