package lint

import (
	"fmt"
	"io"
	"strings"
)

// githubReporter prints GitHub Actions workflow commands, which annotate the pull request.
type githubReporter struct{}

func (githubReporter) Format() string { return "github" }

func (githubReporter) Write(w io.Writer, r Result) error {
	level := map[Severity]string{Error: "error", Warning: "warning", Info: "notice"}
	escape := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	escapeProp := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
	for _, p := range r.Problems {
		if _, err := fmt.Fprintf(w, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", level[p.Severity], escapeProp.Replace(p.Path), p.Pos.Line, p.Pos.Col, escapeProp.Replace(p.Check), escape.Replace(p.Message)); err != nil {
			return err
		}
	}
	return nil
}
