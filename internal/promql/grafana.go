package promql

import (
	"regexp"
	"strings"
)

// Edit is one replacement made in an expression before parsing.
type Edit struct {
	at          int // offset in the parsed text
	parsedLen   int
	originalLen int
}

// OriginalOffset maps an offset in the parsed text back to the original text.
func OriginalOffset(edits []Edit, offset int) int {
	shift := 0
	for _, e := range edits {
		if offset < e.at {
			break
		}
		if offset < e.at+e.parsedLen {
			return e.at + shift // inside a replacement: its start
		}
		shift += e.originalLen - e.parsedLen
	}
	return offset + shift
}

// grafanaVariable matches $name, ${name}, ${name:format} and [[name]].
var grafanaVariable = regexp.MustCompile(`\$\{([A-Za-z0-9_]+)(?::[^}]*)?\}|\$([A-Za-z0-9_]+)|\[\[([A-Za-z0-9_]+)\]\]`)

// intervals are Grafana's built-in duration variables.
var intervals = map[string]bool{"__rate_interval": true, "__interval": true, "__range": true, "__range_s": false}

// SubstituteGrafanaVariables replaces Grafana template variables so a dashboard query parses
// as PromQL: durations become 5m, a variable inside a quoted string is left as it is (it is a
// label value), and any other becomes its own name (a label name in by (...)). The edits map
// positions back to the original text.
func SubstituteGrafanaVariables(text string) (string, []Edit) {
	if !strings.ContainsAny(text, "$[") {
		return text, nil
	}
	var out strings.Builder
	var edits []Edit
	last := 0
	for _, m := range grafanaVariable.FindAllStringSubmatchIndex(text, -1) {
		start, end := m[0], m[1]
		if insideQuotes(text, start) {
			continue
		}
		name := ""
		for g := 2; g+1 < len(m); g += 2 {
			if m[g] >= 0 {
				name = text[m[g]:m[g+1]]
			}
		}
		replacement := name
		if intervals[name] {
			replacement = "5m"
		}
		out.WriteString(text[last:start])
		edits = append(edits, Edit{at: out.Len(), parsedLen: len(replacement), originalLen: end - start})
		out.WriteString(replacement)
		last = end
	}
	out.WriteString(text[last:])
	return out.String(), edits
}

// insideQuotes reports whether offset i of a PromQL text is inside a string literal.
func insideQuotes(text string, i int) bool {
	var quote byte
	for j := 0; j < i; j++ {
		switch c := text[j]; {
		case quote != 0 && c == '\\':
			j++
		case quote != 0 && c == quote:
			quote = 0
		case quote == 0 && (c == '"' || c == '\'' || c == '`'):
			quote = c
		}
	}
	return quote != 0
}

// FillGrafanaVariables is the query with its Grafana variables substituted.
func FillGrafanaVariables(text string) string {
	out, _ := SubstituteGrafanaVariables(text)
	return out
}
