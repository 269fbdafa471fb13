package source

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/gpuobs/gpuobs/internal/output"
)

// ReadFile reads one input by its extension: .json is a Grafana dashboard, and so is a file
// without an extension that holds a JSON object (rendered mixins name their dashboards so);
// anything else is a rule file.
func ReadFile(path string, data []byte) *File {
	var f *File
	if isJSON(path) || (filepath.Ext(path) == "" && jsonObject(data)) {
		f = ReadDashboard(path, data)
	} else {
		f = ReadRules(path, data)
	}
	// A file that does not parse because it is a template (a Helm chart's, an operator's Go
	// templates, Terraform's templatefile, a benchmark's config) says so, at the action: it is
	// still an error, as any file lint was given and cannot read (a pull request must not make
	// a rule file skipped by adding an action to it). A file that parses is read as it is.
	// The error points where YAML stopped (an action that parses, such as a whole value
	// {{ include ... }}, is not what broke the file), or at the first action where YAML gives no
	// line. In a JSON dashboard {{ }} and ${ } are Grafana's own (legends, variables): only a
	// Helm action makes it a template.
	if f.Err != nil {
		m := helmAction.FindIndex(data)
		what := "it is a Helm template (it holds {{ ... }} actions of Helm's; YAML stops on this line): lint what `helm template` renders"
		if m == nil && !isJSON(path) {
			m = templateAction.FindIndex(data)
			what = "it is a template (it holds {{ ... }}, ${...} or %{...} actions; YAML stops on this line), not YAML until it is filled: lint what it renders"
		}
		if m != nil {
			pos := f.Err.Pos
			if pos == (Pos{1, 1}) {
				pos = Pos{1 + bytes.Count(data[:m[0]], []byte("\n")), 1}
			}
			f.Err = &ReadError{Pos: pos, Message: "cannot read the file: " + what + ", or leave its directory out with lint.ignore", Template: true}
		}
	}
	f.Generated = output.HasHeader(path, data)
	return f
}

// jsonObject reports whether data starts as a JSON object does: "{" after white space (and a
// byte-order mark).
func jsonObject(data []byte) bool {
	data = bytes.TrimLeft(bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")), " \t\r\n")
	return len(data) > 0 && data[0] == '{'
}

// startsJSONObject reports whether the file at path starts as a JSON object, reading only its
// first bytes: a directory walk reads a file without an extension (a README, a LICENSE, a
// binary) only when it holds one.
func startsJSONObject(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, 512)
	n, _ := io.ReadFull(f, head)
	return jsonObject(head[:n])
}

// chartDir is the directory of the Helm chart whose template a file is: the nearest directory
// above it (at most maxChartDepth up) that holds a Chart.yaml and whose templates directory
// holds the file, as Helm renders only templates/; or "". A Chart.yaml planted beside a rule
// file does not make it a chart's template.
func chartDir(name string) string {
	dir, child := filepath.Dir(name), ""
	for range maxChartDepth {
		if info, err := os.Stat(filepath.Join(dir, "Chart.yaml")); err == nil && info.Mode().IsRegular() && child == "templates" {
			return filepath.ToSlash(dir)
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			break
		}
		dir, child = parent, filepath.Base(dir)
	}
	return ""
}

// maxChartDepth is how far above a template chartDir looks: templates/ and its subdirectories.
const maxChartDepth = 4

// isJSON reports whether a path names a JSON file (a Grafana dashboard).
func isJSON(path string) bool { return strings.EqualFold(filepath.Ext(path), ".json") }

// helmAction matches what only a Helm chart's templates hold: an action on its built-in
// objects (.Values, .Release, .Chart, .Capabilities, .Files) or its functions (include, tpl,
// toYaml, define), which Prometheus' own alert templates ({{ $labels.x }}, {{ range query }})
// never use.
var helmAction = regexp.MustCompile(`\{\{-?\s*(\.Values|\.Release|\.Chart|\.Capabilities|\.Files|include\s|tpl\s|toYaml\s|define\s)`)

// templateAction matches the actions of the templating tools that leave a file not YAML until
// it is filled: Go's (and so Helm's and operators') {{ }}, Jinja's {% %}, Terraform's ${ } and
// %{ }.
var templateAction = regexp.MustCompile(`\{\{|\{%|\$\{[A-Za-z_]|%\{`)

// toolingDirs are the directories of version control, CI systems and editors.
var toolingDirs = map[string]bool{".git": true, ".github": true, ".gitlab": true, ".circleci": true, ".vscode": true, ".idea": true, ".devcontainer": true}

// ReadPaths reads files, and the .yaml, .yml, .rules and .json files under directories (not
// in tooling directories: toolingDirs) and those without an extension that hold a JSON object,
// in path order; the dashboards of ConfigMaps follow the file that holds them.
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
			f := readPath(p, filepath.Dir(p), false)
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
			case path != p && d.IsDir() && toolingDirs[d.Name()]:
				// A version control's, CI's or editor's own directory holds tooling, not
				// monitoring: not read unless named. Other hidden paths are read, so that a
				// rule file moved into one is still checked.
				return fs.SkipDir
			case d.IsDir():
			default:
				switch strings.ToLower(filepath.Ext(path)) {
				case ".yaml", ".yml", ".json", ".rules":
					found = append(found, path)
				case "":
					if d.Type().IsRegular() && startsJSONObject(path) {
						found = append(found, path)
					}
				}
			}
			return nil
		})
		sort.Strings(found)
		for _, name := range found {
			f := readPath(name, p, true)
			files = append(append(files, f), f.Embedded...)
		}
		files = append(files, problems...)
	}
	return files
}

// readPath reads one file if it is a regular file (after symbolic links) inside tree, the
// directory it was found in or given from: a link out of it is skipped unread, so that none of
// what it points at (a token, the environment) is ever echoed. A file found by walking a
// directory is parsed only if it may hold rule groups or a dashboard (mayHold); a file named
// is always parsed, and what it cannot be read as is said.
func readPath(name, tree string, walked bool) *File {
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
	if walked && !mayHold(data) {
		return &File{Path: filepath.ToSlash(name)}
	}
	f := ReadFile(filepath.ToSlash(name), data)
	if f.Err != nil && f.Err.Template {
		f.Err.Chart = chartDir(name)
	}
	return f
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
