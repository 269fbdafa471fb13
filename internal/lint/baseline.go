package lint

import (
	"encoding/json"
	"fmt"
	"io"
	"sort"
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
func ReadBaseline(data []byte) (Baseline, error) {
	var lines []baselineLine
	if err := json.Unmarshal(data, &lines); err != nil {
		return nil, fmt.Errorf("not a gpuobs lint baseline: %w", err)
	}
	b := Baseline{}
	for _, l := range lines {
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
