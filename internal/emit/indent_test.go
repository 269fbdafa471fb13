package emit

import (
	"bytes"
	"encoding/json"
	"testing"
)

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
