package jsontext

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzIndent holds Indent to json.Indent's bytes on any JSON value as the encoder
// writes it (compact, newline-terminated): strings with quotes, backslashes and brackets in
// them, empty and nested objects and arrays, numbers and literals.
func FuzzIndent(f *testing.F) {
	for _, seed := range []string{
		`{}`, `[]`, `{"a":[]}`, `{"a":{},"b":[{}],"c":[[],[1]]}`, `"x"`, `1.5e-7`, `null`,
		`{"rule_files":["../../rules/a.yaml"],"tests":[{"name":"a \"quoted\" {name}, [x]: y","input_series":[{"series":"up{job=\"a\\\\b\"}","values":"1x60"}]}]}`,
		`{"k":"x \", [y]: {z} \" w","l":"\\"}`,
		`{"exp_annotations":{"description":"ü ∑ \u2028 <b>&</b>","summary":"a\\"},"value":-0.25,"ok":true}`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var compact bytes.Buffer
		if json.Compact(&compact, data) != nil {
			return // not JSON: the encoder never writes it
		}
		compact.WriteByte('\n')
		var want bytes.Buffer
		if err := json.Indent(&want, compact.Bytes(), "", "  "); err != nil {
			t.Fatal(err)
		}
		if got := Indent([]byte("# head\n"), compact.Bytes()); string(got) != "# head\n"+want.String() {
			t.Errorf("Indent(%q) =\n%s\nwant\n%s", compact.Bytes(), got, want.Bytes())
		}
	})
}

// FuzzCompact: Compact writes what json.Compact writes, for any valid JSON, indented
// as Jsonnet indents its output or otherwise.
func FuzzCompact(f *testing.F) {
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
		if got := Compact(data); got != want.String() {
			t.Errorf("Compact(%q) = %q, want %q", data, got, want.String())
		}
	})
}
