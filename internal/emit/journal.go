package emit

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"

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
// a journal are removed. Only gpuobs' own temporary files and generated files are touched: a
// journal may rename only a temporary file of gpuobs' onto one of files (the declared outputs)
// that is missing or carries the header, and remove only generated files of the managed
// directories; one that asks for anything else is refused whole before anything is done, and
// each rename and removal checks again, as it acts, that no link lies on its way.
func Recover(dir string, files []File, managed []string) (Recovered, error) {
	var r Recovered
	if _, err := os.Stat(dir); errors.Is(err, fs.ErrNotExist) {
		return r, nil
	}
	unlock, err := lockDir(dir)
	if err != nil {
		return r, fmt.Errorf("locking %s: %w", dir, err)
	}
	defer unlock()
	if err := checkPaths(dir, nil, managed); err != nil {
		return r, err
	}
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
		if err := checkJournal(dir, j, files, managed); err != nil {
			return r, err
		}
		if r.Completed, err = replay(dir, j); err != nil {
			return r, fmt.Errorf("completing an interrupted run: %w", err)
		}
		if err := os.Remove(path); err != nil {
			return r, err
		}
	}
	temps, err := staleTemps(dir, managed)
	for _, t := range temps {
		if err := removeInside(dir, t); err != nil {
			return r, err
		}
		r.Temporary++
	}
	return r, err
}

// replay makes the renames and removals of a checked journal that are still to be made, each
// through no link at the moment it is made, and counts them.
func replay(dir string, j journal) (int, error) {
	done := 0
	for _, mv := range j.Renames {
		from, err := inside(dir, mv.From)
		if err != nil {
			return done, err
		}
		if _, err := os.Lstat(from); err != nil {
			continue // renamed before the run was killed
		}
		if err := renameInside(dir, mv.From, mv.To); err != nil {
			return done, err
		}
		done++
	}
	for _, p := range j.Remove {
		target, err := inside(dir, p)
		if err != nil {
			return done, err
		}
		if isGeneratedFile(target, target) {
			if err := removeInside(dir, p); err != nil {
				return done, err
			}
			done++
		}
	}
	return done, nil
}

// checkJournal holds a journal to what Write writes: every path plain and inside dir, through
// no link; each rename from a temporary file of gpuobs' (a regular file with the header) to the
// declared output beside it, which is missing or carries the header; each removal inside a
// managed directory. The error says what the journal tried.
func checkJournal(dir string, j journal, files []File, managed []string) error {
	journalPath := filepath.Join(dir, output.Journal)
	refuse := func(format string, args ...any) error {
		return fmt.Errorf("%s: refused, nothing done: it %s; gpuobs writes only journals that rename its own temporary files onto its outputs; remove it and generate again", journalPath, fmt.Sprintf(format, args...))
	}
	declared := map[string]bool{}
	for _, f := range files {
		declared[f.Path] = true
	}
	var paths []File
	for _, mv := range j.Renames {
		paths = append(paths, File{Path: mv.From}, File{Path: mv.To})
	}
	for _, p := range j.Remove {
		paths = append(paths, File{Path: p})
	}
	if err := checkPaths(dir, paths, managed); err != nil {
		return err
	}
	for _, mv := range j.Renames {
		if filepath.Dir(mv.From) != filepath.Dir(mv.To) || !tempName.MatchString(filepath.Base(mv.From)) {
			return refuse("renames %q, which is not a temporary file of gpuobs beside %q", mv.From, mv.To)
		}
		if !declared[mv.To] {
			return refuse("renames %q onto %q, which gpuobs does not generate", mv.From, mv.To)
		}
		from := filepath.Join(dir, filepath.FromSlash(mv.From))
		if info, err := os.Lstat(from); err == nil && (!info.Mode().IsRegular() || !isGeneratedFile(from, mv.To)) {
			return refuse("renames %q, which is not a file gpuobs wrote (a %s without its header)", mv.From, kind(info))
		}
		to := filepath.Join(dir, filepath.FromSlash(mv.To))
		if info, err := os.Lstat(to); err == nil && (!info.Mode().IsRegular() || !isGeneratedFile(to, to)) {
			return refuse("renames %q over %q, a %s without the gpuobs header", mv.From, mv.To, kind(info))
		}
	}
	for _, p := range j.Remove {
		if !underAny(p, managed) {
			return refuse("removes %q, which is outside the directories gpuobs manages (%s)", p, strings.Join(managed, ", "))
		}
		target := filepath.Join(dir, filepath.FromSlash(p))
		if info, err := os.Lstat(target); err == nil && !info.Mode().IsRegular() {
			return refuse("removes %q, a %s", p, kind(info))
		}
	}
	return nil
}

// kind names what a directory entry is, for a refusal.
func kind(info fs.FileInfo) string {
	switch {
	case info.Mode()&fs.ModeSymlink != 0:
		return "symbolic link"
	case info.IsDir():
		return "directory"
	case info.Mode().IsRegular():
		return "file"
	}
	return "special file"
}

// underAny reports whether a slash path lies inside one of the directories.
func underAny(p string, dirs []string) bool {
	for _, d := range dirs {
		if d == "." || strings.HasPrefix(p, strings.TrimSuffix(filepath.ToSlash(d), "/")+"/") {
			return true
		}
	}
	return false
}

// tempName is the name of a temporary file Write makes: .<name>.gpuobs-<digits>.
var tempName = regexp.MustCompile(`^\..+` + regexp.QuoteMeta(tempMarker) + `[0-9]+$`)

// staleTemps are the temporary files of gpuobs' in dir and its managed directories, as slash
// paths relative to dir.
func staleTemps(dir string, managed []string) ([]string, error) {
	var out []string
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if e.Type().IsRegular() && isTemp(e.Name()) {
			out = append(out, e.Name())
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
			// WalkDir lists a link as a link and never descends it; checkPaths has refused a
			// link on the way to the managed directory itself.
			if e.Type().IsRegular() && isTemp(e.Name()) {
				rel, _ := filepath.Rel(dir, p)
				out = append(out, filepath.ToSlash(rel))
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
	}
	return out, nil
}
