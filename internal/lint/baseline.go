package lint

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
)

// Baseline is the problems a repository accepted when it adopted lint, by key and count: only
// new problems fail a pull request.
type Baseline map[baselineEntry]int

// baselineEntry identifies a problem by file, check, the rule or panel it is in and message,
// never by line: moving a rule within its file does not raise its problems again.
type baselineEntry struct {
	Path    string `json:"path"`
	Check   string `json:"check"`
	Subject string `json:"subject,omitempty"`
	Message string `json:"message"`
}

type baselineLine struct {
	baselineEntry
	Count int `json:"count"`
}

// subject is the rule or panel holding a problem, or "" for the file.
func (in *Inputs) subject(p Problem) string {
	for _, f := range in.Files {
		if f.Path != p.Path {
			continue
		}
		for _, r := range f.Rules {
			if p.Pos.Line >= r.Pos.Line && p.Pos.Line <= r.End {
				return r.Name()
			}
		}
		if f.Dashboard != nil {
			for _, q := range f.Dashboard.Queries {
				if q.Expr.PosAt(0).Line == p.Pos.Line {
					return "panel " + q.Panel
				}
			}
		}
	}
	return ""
}

func (in *Inputs) entry(p Problem) baselineEntry {
	return baselineEntry{Path: p.Path, Check: p.Check, Subject: in.subject(p), Message: p.Message}
}

// WriteBaseline writes the problems as a baseline file (JSON, sorted).
func (in *Inputs) WriteBaseline(w io.Writer, problems []Problem) error {
	counts := Baseline{}
	for _, p := range problems {
		counts[in.entry(p)]++
	}
	lines := make([]baselineLine, 0, len(counts))
	for e, n := range counts {
		lines = append(lines, baselineLine{e, n})
	}
	sort.Slice(lines, func(i, j int) bool {
		a, b := lines[i], lines[j]
		return fmt.Sprint(a.Path, a.Check, a.Subject, a.Message) < fmt.Sprint(b.Path, b.Check, b.Subject, b.Message)
	})
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(lines)
}

// ReadBaseline reads a baseline file written by WriteBaseline.
// Its errors say where, in the file's own terms (entry 3: count: is a string; want a whole
// number), never in Go's.
func ReadBaseline(data []byte) (Baseline, error) {
	var entries []json.RawMessage
	if err := json.Unmarshal(data, &entries); err != nil {
		var syntax *json.SyntaxError
		if errors.As(err, &syntax) {
			return nil, fmt.Errorf("not a gpuobs lint baseline: invalid JSON at byte %d", syntax.Offset)
		}
		return nil, errors.New("not a gpuobs lint baseline: want a list of entries, as --write-baseline writes")
	}
	b := Baseline{}
	for i, raw := range entries {
		var l baselineLine
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			var typeErr *json.UnmarshalTypeError
			if errors.As(err, &typeErr) {
				field := typeErr.Field[strings.LastIndex(typeErr.Field, ".")+1:]
				return nil, fmt.Errorf("entry %d: %s: is a %s; want %s", i+1, field, typeErr.Value, map[bool]string{true: "a whole number", false: "a string"}[typeErr.Type.Kind() == reflect.Int])
			}
			return nil, fmt.Errorf("entry %d: %s (fields: path, check, subject, message, count)", i+1, strings.TrimPrefix(err.Error(), "json: "))
		}
		b[l.baselineEntry] += l.Count
	}
	return b, nil
}

// New drops the problems the baseline accepted, each as many times as it was counted.
func (in *Inputs) New(b Baseline, problems []Problem) []Problem {
	left := make(Baseline, len(b))
	for e, n := range b {
		left[e] = n
	}
	var out []Problem
	for _, p := range problems {
		if e := in.entry(p); left[e] > 0 {
			left[e]--
			continue
		}
		out = append(out, p)
	}
	return out
}
