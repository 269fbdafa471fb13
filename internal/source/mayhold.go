package source

import (
	"bytes"
	"strconv"
	"unicode/utf8"
)

// readerKeys are the keys the readers look for: a rule file's groups, a dashboard's keys
// (dashboardKeys less spec, which every Kubernetes manifest has).
var readerKeys = func() [][]byte {
	keys := [][]byte{[]byte("groups")}
	for _, k := range dashboardKeys {
		if k != "spec" {
			keys = append(keys, []byte(k))
		}
	}
	return keys
}()

// readerKinds are the kinds of the manifests the readers take whole: a template of one (its
// groups or dashboard filled from values) is said to be one.
var readerKinds = [][]byte{[]byte("PrometheusRule"), []byte("GrafanaDashboard")}

// mayHold reports whether a file may hold a rule group or a Grafana dashboard: whether a key
// the readers look for can be read from it however YAML or JSON spell it (plain, quoted, with
// escapes such as \x67 or \u0067, as an explicit key or an alias), or it names a kind they take. A directory walk parses only such files: the
// manifests, CRD bundles and data files of a repository (megabytes each) are skipped unparsed,
// as the readers would skip them after parsing.
func mayHold(data []byte) bool {
	if bytes.IndexByte(data, '\\') >= 0 {
		data = unescape(data)
	}
	for _, kind := range readerKinds {
		if bytes.Contains(data, kind) {
			return true
		}
	}
	for _, key := range readerKeys {
		for at := 0; ; {
			i := bytes.Index(data[at:], key)
			if i < 0 {
				break
			}
			at += i + len(key)
			if colonFollows(data, at, true) {
				return true
			}
		}
	}
	return otherKeySpelling(data)
}

// colonFollows reports whether a ":" follows data[at:], after an optional closing quote and
// white space (line breaks too, as after an explicit key).
func colonFollows(data []byte, at int, quote bool) bool {
	if quote && at < len(data) && (data[at] == '"' || data[at] == '\'') {
		at++
	}
	for at < len(data) && (data[at] == ' ' || data[at] == '\t' || data[at] == '\r' || data[at] == '\n') {
		at++
	}
	return at < len(data) && data[at] == ':'
}

// otherKeySpelling reports whether data names a key without writing it before its ":": an
// explicit key ("? key", whose ":" may follow a comment) or an alias used as a key ("*a :").
func otherKeySpelling(data []byte) bool {
	for i, c := range data {
		switch c {
		case '?':
			if (i+1 == len(data) || isSpace(data[i+1])) && startsKey(data, i) {
				return true
			}
		case '*':
			j := i + 1
			for j < len(data) && !isSpace(data[j]) && !bytes.ContainsRune([]byte(",[]{}"), rune(data[j])) {
				j++
			}
			if j > i+1 && colonFollows(data, j, false) {
				return true
			}
		}
	}
	return false
}

// startsKey reports whether the character at i starts a node: only indentation, "-" or a
// flow collection's "{", "[" or "," precede it.
func startsKey(data []byte, i int) bool {
	for i--; i >= 0; i-- {
		switch data[i] {
		case ' ', '\t', '-':
		case '\n', '{', '[', ',':
			return true
		default:
			return false
		}
	}
	return true
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\r' || c == '\n' }

// escapeDigits is how many hexadecimal digits follow \x, \u and \U.
var escapeDigits = map[byte]int{'x': 2, 'u': 4, 'U': 8}

// unescape over-reads a file's escapes, as any YAML or JSON string may hold them: \x, \u and
// \U sequences become their characters, and every other backslash goes. (A key broken over
// lines by a backslash is an explicit key, which otherKeySpelling finds.)
func unescape(data []byte) []byte {
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		if data[i] != '\\' || i+1 == len(data) {
			out = append(out, data[i])
			continue
		}
		switch next := data[i+1]; next {
		case 'x', 'u', 'U':
			digits := escapeDigits[next]
			if i+2+digits <= len(data) {
				if r, err := strconv.ParseUint(string(data[i+2:i+2+digits]), 16, 32); err == nil && utf8.ValidRune(rune(r)) {
					out = utf8.AppendRune(out, rune(r))
					i += 1 + digits
					continue
				}
			}
		}
	}
	return out
}
