package lint

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/gpuobs/gpuobs/internal/emit"
)

// ReadFile reads one input by its extension: .json is a Grafana dashboard, anything else a
// rule file.
func ReadFile(path string, data []byte) *File {
	var f *File
	if strings.EqualFold(filepath.Ext(path), ".json") {
		f = ReadDashboard(path, data)
	} else {
		f = ReadRules(path, data)
	}
	f.Generated = emit.HasHeader(path, data)
	return f
}

// ReadPaths reads files, and the .yaml, .yml, .rules and .json files under directories, in
// path order; the dashboards of ConfigMaps follow the file that holds them.
// Only regular files are read: anything else (a named pipe, a device, a directory named
// x.yaml) is reported and skipped, and so is what cannot be read (a symbolic-link loop, a
// permission); the rest is read all the same.
func ReadPaths(paths []string) []*File {
	var files []*File
	for _, p := range paths {
		info, err := os.Stat(p)
		switch {
		case err != nil:
			files = append(files, unreadable(p, err))
			continue
		case !info.IsDir():
			f := readPath(p, filepath.Dir(p))
			files = append(append(files, f), f.Embedded...)
			continue
		}
		var found []string
		var problems []*File
		// WalkDir does not follow symbolic links to directories, so it cannot loop.
		_ = filepath.WalkDir(p, func(path string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				problems = append(problems, unreadable(path, err))
				if d != nil && d.IsDir() {
					return fs.SkipDir
				}
			case d.IsDir():
			default:
				switch strings.ToLower(filepath.Ext(path)) {
				case ".yaml", ".yml", ".json", ".rules":
					found = append(found, path)
				}
			}
			return nil
		})
		sort.Strings(found)
		for _, name := range found {
			f := readPath(name, p)
			files = append(append(files, f), f.Embedded...)
		}
		files = append(files, problems...)
	}
	return files
}

// readPath reads one file if it is a regular file (after symbolic links) inside tree, the
// directory it was found in or given from: a link out of it is skipped unread, so that none of
// what it points at (a token, the environment) is ever echoed.
func readPath(name, tree string) *File {
	info, err := os.Stat(name)
	if err != nil {
		return unreadable(name, err)
	}
	if !InTree(tree, name) {
		return skipped(name, "a symbolic link out of "+tree+": not read")
	}
	if !info.Mode().IsRegular() {
		return skipped(name, fmt.Sprintf("not a regular file (%s): skipped", describeMode(info.Mode())))
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return unreadable(name, err)
	}
	return ReadFile(filepath.ToSlash(name), data)
}

// ReadInTree reads a regular file of a tree a user gave, refusing, unread, one that is (or lies
// behind) a symbolic link out of the tree (a checked-in file linked to /proc/self/environ must
// not reach a log or a pull-request comment) and one that is not a regular file (a named pipe
// would block the read for ever). The refusal quotes nothing of the file.
func ReadInTree(dir, path string) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !InTree(dir, path) {
		return nil, fmt.Errorf("%s is a symbolic link out of %s: not read", path, dir)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a regular file (%s): not read", path, describeMode(info.Mode()))
	}
	return os.ReadFile(path)
}

// ReadNamed reads a file a user named (a baseline, a counter file) by ReadInTree's rule, its
// tree being its own directory.
func ReadNamed(path string) ([]byte, error) { return ReadInTree(filepath.Dir(path), path) }

// InTree reports whether a file, symbolic links resolved, lies under dir, resolved as well:
// what every reader of a tree a user gave asks before it reads a file of it.
func InTree(dir, name string) bool {
	resolvedDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return false
	}
	resolved, err := filepath.EvalSymlinks(name)
	if err != nil {
		return false
	}
	rel, err := filepath.Rel(resolvedDir, resolved)
	return err == nil && filepath.IsLocal(rel)
}

func describeMode(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "mode " + m.String()
}

// unreadable is an input that could not be read: an error, since it was meant to be linted.
func unreadable(name string, err error) *File {
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg = pe.Err.Error()
	}
	return &File{Path: filepath.ToSlash(name), Err: &Problem{Check: ReadCheck, Severity: Error, Path: filepath.ToSlash(name), Pos: Pos{1, 1}, Message: "cannot read the file: " + msg}}
}

// skipped is an input that is not a file lint reads: a warning.
func skipped(name, msg string) *File {
	return &File{Path: filepath.ToSlash(name), Err: &Problem{Check: ReadCheck, Severity: Warning, Path: filepath.ToSlash(name), Pos: Pos{1, 1}, Message: msg}}
}
