package source

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/gpuobs/gpuobs/internal/output"
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
	// A chart's template of rules or dashboards holds Helm's actions where rules or queries
	// go, and a template of any tool (an operator's Go templates, Terraform's templatefile, a
	// benchmark's config) is not YAML until it is filled: say so once. A values file or a chart
	// test that merely quotes an action holds nothing to read and is skipped as such.
	m := helmAction.FindIndex(data)
	what, how := "a Helm template (a {{ ... }} action of Helm's on this line)", "`helm template` renders"
	if m == nil && f.Err != nil {
		m = templateAction.FindIndex(data)
		what, how = "a template (a {{ ... }}, ${...} or %{...} action on this line), not YAML until it is filled", "it renders"
	}
	if m != nil && (f.Err != nil || len(f.Rules) > 0 || f.Dashboard != nil || len(f.Embedded) > 0) {
		line := 1 + bytes.Count(data[:m[0]], []byte("\n"))
		return &File{Path: path, Lines: f.Lines, Err: &ReadError{Pos: Pos{line, 1}, Skipped: true,
			Message: what + ", not a rule file or dashboard: not read; lint what " + how}}
	}
	f.Generated = output.HasHeader(path, data)
	return f
}

// helmAction matches what only a Helm chart's templates hold: an action on its built-in
// objects (.Values, .Release, .Chart, .Capabilities, .Files) or its functions (include, tpl,
// toYaml, define), which Prometheus' own alert templates ({{ $labels.x }}, {{ range query }})
// never use.
var helmAction = regexp.MustCompile(`\{\{-?\s*(\.Values|\.Release|\.Chart|\.Capabilities|\.Files|include\s|tpl\s|toYaml\s|define\s)`)

// templateAction matches the actions of the templating tools that leave a file not YAML until
// it is filled: Go's (and so Helm's and operators') {{ }}, Jinja's {% %}, Terraform's ${ } and
// %{ }.
var templateAction = regexp.MustCompile(`\{\{|\{%|\$\{[A-Za-z_]|%\{`)

// ReadPaths reads files, and the .yaml, .yml, .rules and .json files under directories (not
// in hidden ones, nor hidden files), in path order; the dashboards of ConfigMaps follow the
// file that holds them.
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
			case path != p && strings.HasPrefix(d.Name(), "."):
				// Hidden directories and files (.git, .github, .vscode, .devcontainer,
				// .krew.yaml) hold tooling, not monitoring: not read unless named.
				if d.IsDir() {
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
		return skipped(name, fmt.Sprintf("not a regular file (%s): skipped", DescribeMode(info.Mode())))
	}
	data, err := os.ReadFile(name)
	if err != nil {
		return unreadable(name, err)
	}
	return ReadFile(filepath.ToSlash(name), data)
}

// unreadable is an input that could not be read.
func unreadable(name string, err error) *File {
	msg := err.Error()
	var pe *fs.PathError
	if errors.As(err, &pe) {
		msg = pe.Err.Error()
	}
	return &File{Path: filepath.ToSlash(name), Err: &ReadError{Pos: Pos{1, 1}, Message: "cannot read the file: " + msg}}
}

// skipped is an input that is not a file the readers take.
func skipped(name, msg string) *File {
	return &File{Path: filepath.ToSlash(name), Err: &ReadError{Pos: Pos{1, 1}, Message: msg, Skipped: true}}
}
