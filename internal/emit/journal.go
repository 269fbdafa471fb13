package emit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"

	"github.com/gpuobs/gpuobs/internal/output"
)

// The journal (output.Journal) is where Write records, before its first rename, the renames and
// removals it is about to make, and removes once they are made: a run killed outright (SIGKILL,
// a lost node) between the two leaves it, and Recover completes what it lists.

// journal is what a Write is about to change, paths relative to its directory.
type journal struct {
	Renames []journalRename `json:"renames"`
	Remove  []string        `json:"remove"`
}

type journalRename struct {
	From string `json:"from"`
	To   string `json:"to"`
}

func writeJournal(dir string, j journal) error {
	data, err := json.Marshal(j)
	if err != nil {
		return err
	}
	return WriteFile(filepath.Join(dir, output.Journal), data)
}

// Recovered is what Recover found an interrupted run to have left, and did with it.
type Recovered struct {
	// Completed is how many renames and removals of a killed run's journal it made: the tree
	// is now that run's new one.
	Completed int
	// Temporary is how many temporary files of a run killed before its journal it removed:
	// the tree was left as it was.
	Temporary int
}

// Recover makes dir whole after a run of Write that was killed outright: the renames and
// removals its journal lists are completed, and temporary files of a run killed before it had
// a journal are removed. Only gpuobs' own temporary files and generated files are touched.
func Recover(dir string, managed []string) (Recovered, error) {
	var r Recovered
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return r, fmt.Errorf("locking %s: %w", dir, err)
	}
	defer unlock()
	path := filepath.Join(dir, output.Journal)
	if info, err := os.Lstat(path); err == nil {
		if !info.Mode().IsRegular() {
			return r, fmt.Errorf("%s is not a regular file: gpuobs reads its journal only from a file it wrote", path)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return r, err
		}
		var j journal
		if err := json.Unmarshal(data, &j); err != nil {
			return r, fmt.Errorf("%s: not a journal gpuobs wrote (%v); remove it and generate again", path, err)
		}
		if err := checkJournal(dir, j, managed); err != nil {
			return r, err
		}
		for _, mv := range j.Renames {
			from := filepath.Join(dir, filepath.FromSlash(mv.From))
			if _, err := os.Lstat(from); err != nil {
				continue // renamed before the run was killed
			}
			if err := os.Rename(from, filepath.Join(dir, filepath.FromSlash(mv.To))); err != nil {
				return r, fmt.Errorf("completing an interrupted run: %w", err)
			}
			r.Completed++
		}
		for _, p := range j.Remove {
			target := filepath.Join(dir, filepath.FromSlash(p))
			if isGenerated(target) {
				if err := os.Remove(target); err != nil {
					return r, fmt.Errorf("completing an interrupted run: %w", err)
				}
				r.Completed++
			}
		}
		if err := os.Remove(path); err != nil {
			return r, err
		}
	}
	temps, err := staleTemps(dir, managed)
	for _, t := range temps {
		if err := os.Remove(t); err != nil {
			return r, err
		}
		r.Temporary++
	}
	return r, err
}

// checkJournal holds a journal to what Write writes: every path plain and inside dir, each
// rename from a temporary file of gpuobs' to the file beside it, through no link.
func checkJournal(dir string, j journal, managed []string) error {
	var files []File
	for _, mv := range j.Renames {
		if filepath.Dir(mv.From) != filepath.Dir(mv.To) || !tempName.MatchString(filepath.Base(mv.From)) {
			return fmt.Errorf("%s: renames %q, which is not a temporary file of gpuobs beside %q; remove the journal and generate again", filepath.Join(dir, output.Journal), mv.From, mv.To)
		}
		files = append(files, File{Path: mv.From}, File{Path: mv.To})
	}
	for _, p := range j.Remove {
		files = append(files, File{Path: p})
	}
	return checkPaths(dir, files, managed)
}

// tempName is the name of a temporary file Write makes: .<name>.gpuobs-<digits>.
var tempName = regexp.MustCompile(`^\..+` + regexp.QuoteMeta(tempMarker) + `[0-9]+$`)

// staleTemps are the temporary files of gpuobs' in dir and its managed directories.
func staleTemps(dir string, managed []string) ([]string, error) {
	var out []string
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Type().IsRegular() && isTemp(e.Name()) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	for _, m := range managed {
		err := filepath.WalkDir(filepath.Join(dir, m), func(p string, e fs.DirEntry, err error) error {
			if errors.Is(err, fs.ErrNotExist) {
				return filepath.SkipDir
			}
			if err != nil {
				return err
			}
			if e.Type().IsRegular() && isTemp(e.Name()) {
				out = append(out, p)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
