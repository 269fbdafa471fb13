package emit

import (
	"bytes"
	"encoding/json"
	"testing"
)

// FuzzIndentJSON holds indentJSON to json.Indent's bytes on any JSON value as the encoder
// writes it (compact, newline-terminated): strings with quotes, backslashes and brackets in
// them, empty and nested objects and arrays, numbers and literals.
func FuzzIndentJSON(f *testing.F) {
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
		if got := indentJSON([]byte("# head\n"), compact.Bytes()); string(got) != "# head\n"+want.String() {
			t.Errorf("indentJSON(%q) =\n%s\nwant\n%s", compact.Bytes(), got, want.Bytes())
		}
	})
}

// TestJSONAsYAMLIsTheEncodersOutput: a file written as JSON-style YAML is what the encoder
// writes with two-space indentation and no HTML escaping, after the header.
func TestJSONAsYAMLIsTheEncodersOutput(t *testing.T) {
	v := map[string]any{"expr": `a > 0 && b < 1`, "tests": []any{map[string]any{"series": `up{job="x"}`, "values": "1x60"}}, "none": []any{}, "n": 0.5}
	var want bytes.Buffer
	enc := json.NewEncoder(&want)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	f, err := JSONAsYAML("tests/x.yaml", v)
	if err != nil {
		t.Fatal(err)
	}
	if string(f.Content) != yamlHeader+want.String() {
		t.Errorf("got\n%s\nwant\n%s%s", f.Content, yamlHeader, want.Bytes())
	}
}
