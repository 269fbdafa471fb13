package lint

import (
	"io"

	"github.com/gpuobs/gpuobs/internal/report"
)

// jsonProblem is a problem in the json format.
type jsonProblem struct {
	Check    string `json:"check"`
	Severity string `json:"severity"`
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Message  string `json:"message"`
}

// jsonReporter writes the problems as a JSON list.
type jsonReporter struct{}

func (jsonReporter) Format() string { return "json" }

func (jsonReporter) Write(w io.Writer, r Result) error {
	out := make([]jsonProblem, 0, len(r.Problems))
	for _, p := range r.Problems {
		out = append(out, jsonProblem{p.Check, p.Severity.String(), p.Path, p.Pos.Line, p.Pos.Col, p.Message})
	}
	return report.WriteJSON(w, out)
}
