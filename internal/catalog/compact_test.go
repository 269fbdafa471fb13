package catalog

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzCompactJSON: compactJSON writes what json.Compact writes, for any valid JSON, indented
// as Jsonnet indents its output or otherwise.
func FuzzCompactJSON(f *testing.F) {
	for _, seed := range []string{
		"{}", "[]", `"x"`, "1.5e-7", "null", " \t\r\n{ } ",
		"{\n   \"a\": [\n      1,\n      \"b c\"\n   ],\n   \"d\": { }\n}\n",
		`{"k": "x \", [y]: {z} \" w", "l": "\\", "m": "tab\there \u2028 ü"}`,
		"[ \"a\\\\\" , \"\\\"\" , true , false ]",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, data string) {
		var want bytes.Buffer
		if json.Compact(&want, []byte(data)) != nil {
			return // not JSON: Jsonnet never writes it
		}
		if got := compactJSON(data); got != want.String() {
			t.Errorf("compactJSON(%q) = %q, want %q", data, got, want.String())
		}
	})
}
