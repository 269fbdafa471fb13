package report_test

import (
	"bytes"
	"io"
	"slices"
	"testing"

	"github.com/gpuobs/gpuobs/internal/report"
)

// plain is a reporter of strings that writes them as they are.
type plain struct{}

func (plain) Format() string                         { return "plain" }
func (plain) Write(w io.Writer, result string) error { _, err := io.WriteString(w, result); return err }

func TestRegistry(t *testing.T) {
	r := report.Registry[string]{plain{}, report.JSON[string]{}}
	if got := r.Formats(); !slices.Equal(got, []string{"plain", "json"}) {
		t.Errorf("Formats() = %q, want plain, json in order", got)
	}
	var b bytes.Buffer
	if err := r.Write(&b, "plain", "a \"b\""); err != nil || b.String() != `a "b"` {
		t.Errorf("plain: %q, %v", b.String(), err)
	}
	b.Reset()
	if err := r.Write(&b, "json", "a \"b\""); err != nil || b.String() != "\"a \\\"b\\\"\"\n" {
		t.Errorf("json: %q, %v", b.String(), err)
	}
	b.Reset()
	err := r.Write(&b, "yaml", "x")
	if err == nil || err.Error() != `unknown format "yaml": use one of plain, json` || b.Len() != 0 {
		t.Errorf("unknown format: %v, wrote %q", err, b.String())
	}
	if _, err := r.Lookup("json"); err != nil {
		t.Errorf("Lookup(json): %v", err)
	}
}

// TestWriteJSON: indented by two spaces, a newline at the end, as every json report is.
func TestWriteJSON(t *testing.T) {
	var b bytes.Buffer
	if err := report.WriteJSON(&b, map[string][]int{"a": {1}}); err != nil || b.String() != "{\n  \"a\": [\n    1\n  ]\n}\n" {
		t.Errorf("WriteJSON: %q, %v", b.String(), err)
	}
}
