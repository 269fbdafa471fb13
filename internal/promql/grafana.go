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

// builtins are Grafana's built-in variables that stand for a duration or a number.
var builtins = map[string]string{
	"__rate_interval": "5m", "__interval": "5m", "__range": "5m",
	"__rate_interval_ms": "300000", "__interval_ms": "300000", "__range_ms": "300000", "__range_s": "300",
	"__from": "0", "__to": "0",
}

// durationAt reports whether a variable at [start, end) of a query stands where PromQL wants a
// duration: inside a range or subquery's brackets, or after offset.
func durationAt(text string, start, end int) bool {
	before := strings.TrimRight(text[:start], " \t")
	after := strings.TrimLeft(text[end:], " \t")
	return strings.HasSuffix(before, "[") || strings.HasSuffix(before, ":") && strings.LastIndex(before, "[") > strings.LastIndex(before, "]") ||
		strings.HasSuffix(before, "offset") || strings.HasPrefix(after, "]")
}

// SubstituteGrafanaVariables replaces Grafana template variables so a dashboard query parses
// as PromQL: built-ins and any variable where a duration goes (the dashboard's own interval
// variables: [$interval]) become a duration or number, a variable inside a quoted string is
// left as it is (it is a label value), a variable values gives a value for (a custom, textbox
// or constant variable: topk($k, ...), an operator) becomes that value when it is a number,
// a name or an operator, and any other becomes its own name (a label name in by (...)). The
// edits map positions back to the original text.
func SubstituteGrafanaVariables(text string, values map[string]string) (string, []Edit) {
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
		replacement, builtin := builtins[name]
		switch {
		case durationAt(text, start, end) && (!builtin || replacement == "5m"):
			replacement = "5m"
		case !builtin && known(values, name):
			replacement = values[name]
		case !builtin:
			replacement = name
		}
		out.WriteString(text[last:start])
		edits = append(edits, Edit{at: out.Len(), parsedLen: len(replacement), originalLen: end - start})
		out.WriteString(replacement)
		last = end
	}
	out.WriteString(text[last:])
	return out.String(), edits
}

// plainValue matches the variable values that can stand in a query as they are: a number, a
// name, a comparison or arithmetic operator, nothing, or more labels for a grouping
// (",transport": sum by (namespace$extra) groups by one more label when it is chosen).
var plainValue = regexp.MustCompile(`^([A-Za-z0-9_.:+-]+|==|!=|>=|<=|[<>*/%^]|(\s*,\s*[A-Za-z_][A-Za-z0-9_]*)*\s*)$`)

// known reports whether a variable has a value that stands in a query as it is (plainValue).
func known(values map[string]string, name string) bool {
	v, ok := values[name]
	return ok && plainValue.MatchString(v)
}

// insideQuotes reports whether offset i of a PromQL text is inside a string literal (a quote
// in a # comment opens none; an offset inside a comment is not in a string).
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
		case quote == 0 && c == '#':
			// A comment runs to the end of its line; its apostrophes open no string.
			if end := strings.IndexByte(text[j:], '\n'); end >= 0 && j+end < i {
				j += end
			} else {
				return false
			}
		}
	}
	return quote != 0
}

// FillGrafanaVariables is the query with its Grafana variables substituted.
func FillGrafanaVariables(text string) string {
	out, _ := SubstituteGrafanaVariables(text, nil)
	return out
}
