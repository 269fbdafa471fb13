package lint

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/source"
	"github.com/gpuobs/gpuobs/internal/testutil"
)

// FuzzReports: a path, a message and a source line from a pull request leave every report
// format whole. Text: as many lines as with plain ones, none starting (after leading spaces)
// with a workflow command. GitHub: one command per problem whose properties are exactly file,
// line, col and title. JSON and SARIF: valid, the path and message read back as they were.
// Checkstyle: valid XML.
func FuzzReports(f *testing.F) {
	for _, seed := range [][3]string{{"rules/a.yaml", "x is not collected", "expr: x"}, {"a\n::error::x", "m\r\n::warning::y", "  ::error::z"}, {"a,b:c", "100%0A", "##[error]q"}, {"<x>&", "]]>", "\u202e"}} {
		f.Add(seed[0], seed[1], seed[2])
	}
	f.Fuzz(func(t *testing.T, path, message, line string) {
		problems := func(path, message string) []Problem {
			return []Problem{{Check: "promql/syntax", Severity: Error, Path: path, Pos: source.Pos{Line: 1, Col: 1}, Width: 3, Message: message}, {Check: "exporter/not-collected", Severity: Warning, Path: path, Pos: source.Pos{Line: 2, Col: 1}, Message: message}}
		}
		files := func(path string) []*source.File { return []*source.File{{Path: path, Lines: []string{line, line}}} }
		var plain, got bytes.Buffer
		if err := Reporters.Write(&plain, "text", Result{Problems: problems("p", "m"), Files: files("p")}); err != nil {
			t.Fatal(err)
		}
		if err := Reporters.Write(&got, "text", Result{Problems: problems(path, message), Files: files(path)}); err != nil {
			t.Fatal(err)
		}
		if p, g := bytes.Count(plain.Bytes(), []byte("\n")), bytes.Count(got.Bytes(), []byte("\n")); p != g {
			t.Fatalf("text: %d lines, %d with plain names:\n%s", g, p, got.String())
		}
		for _, line := range testutil.CommandLines(got.String()) {
			t.Errorf("text: the line %q can be read as a workflow command", line)
		}
		got.Reset()
		if err := Reporters.Write(&got, "github", Result{Problems: problems(path, message)}); err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimSuffix(got.String(), "\n"), "\n")
		if len(lines) != 2 {
			t.Fatalf("github: %d lines for 2 problems:\n%s", len(lines), got.String())
		}
		for _, line := range lines {
			command, _, ok := strings.Cut(strings.TrimPrefix(line, "::"), "::")
			_, props, _ := strings.Cut(command, " ")
			var keys []string
			for _, kv := range strings.Split(props, ",") {
				k, _, _ := strings.Cut(kv, "=")
				keys = append(keys, k)
			}
			if !ok || !strings.HasPrefix(line, "::") || strings.Join(keys, ",") != "file,line,col,title" {
				t.Errorf("github: the command %q does not parse as file, line, col, title", line)
			}
		}
		for _, format := range []string{"json", "sarif"} {
			got.Reset()
			if err := Reporters.Write(&got, format, Result{Problems: problems(path, message)}); err != nil {
				t.Fatal(err)
			}
			var back any
			if err := json.Unmarshal(got.Bytes(), &back); err != nil {
				t.Fatalf("%s: %v:\n%s", format, err, got.String())
			}
			if !strings.Contains(got.String(), string(mustJSON(t, path))) || !strings.Contains(got.String(), string(mustJSON(t, message))) {
				t.Errorf("%s: the path or message does not read back:\n%s", format, got.String())
			}
		}
		got.Reset()
		if err := Reporters.Write(&got, "checkstyle", Result{Problems: problems(path, message)}); err != nil {
			t.Fatal(err)
		}
		var cs checkstyle
		if err := xml.Unmarshal(got.Bytes(), &cs); err != nil || len(cs.Files) != 1 || len(cs.Files[0].Errors) != 2 {
			t.Errorf("checkstyle: %v, %+v:\n%s", err, cs, got.String())
		}
	})
}

func mustJSON(t *testing.T, s string) []byte {
	t.Helper()
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
