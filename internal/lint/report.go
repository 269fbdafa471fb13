package lint

import (
	"encoding/json"
	"encoding/xml"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/gpuobs/gpuobs/internal/escape"
	"github.com/gpuobs/gpuobs/internal/source"
)

// Formats are the output formats Write produces.
var Formats = []string{"text", "json", "github", "sarif", "checkstyle"}

// Write renders problems in a format. files gives the source lines for text output.
func Write(w io.Writer, format string, problems []Problem, files []*source.File) error {
	switch format {
	case "text":
		return writeText(w, problems, files)
	case "json":
		return writeJSON(w, problems)
	case "github":
		return writeGitHub(w, problems)
	case "sarif":
		return writeSARIF(w, problems)
	case "checkstyle":
		return writeCheckstyle(w, problems)
	}
	return fmt.Errorf("unknown format %q: use one of %s", format, strings.Join(Formats, ", "))
}

// maxSourceWidth is how much of a source line a problem shows: a minified dashboard is one
// line of many kilobytes.
const maxSourceWidth = 160

// sourceWindow cuts a long line to maxSourceWidth bytes around column col (1-based), marking
// the cuts with "...", and returns the caret's column in what it shows.
func sourceWindow(line string, col int) (string, int) {
	if len(line) <= maxSourceWidth {
		return line, col
	}
	start := max(0, min(col-1-maxSourceWidth/3, len(line)-maxSourceWidth))
	end := min(len(line), start+maxSourceWidth)
	shown, col := line[start:end], col-start
	if start > 0 {
		shown, col = "..."+shown, col+3
	}
	if end < len(line) {
		shown += "..."
	}
	return shown, col
}

// writeText prints each problem with its source line and a caret under the offending part.
func writeText(w io.Writer, problems []Problem, files []*source.File) error {
	lines := map[string][]string{}
	for _, f := range files {
		lines[f.Path] = f.Lines
	}
	for _, p := range problems {
		// Paths and messages carry names from the files: each stays on its line.
		fmt.Fprintf(w, "%s:%d:%d: %s: %s [%s]\n", escape.Leading(p.Path), p.Pos.Line, p.Pos.Col, p.Severity, escape.Line(p.Message), p.Check)
		src := lines[p.Path]
		if p.Pos.Line < 1 || p.Pos.Line > len(src) {
			continue
		}
		line, col := sourceWindow(strings.ReplaceAll(src[p.Pos.Line-1], "\t", " "), p.Pos.Col)
		width := p.Width
		if rest := len(line) - col + 1; width > rest {
			width = rest
		}
		if width < 1 {
			width = 1
		}
		gutter := fmt.Sprintf("%5d | ", p.Pos.Line)
		fmt.Fprintf(w, "%s%s\n%s%s%s\n", gutter, escape.Line(line), strings.Repeat(" ", len(gutter)-2)+"| ", strings.Repeat(" ", max(col-1, 0)), strings.Repeat("^", width))
	}
	if len(problems) > 0 {
		counts := map[Severity]int{}
		for _, p := range problems {
			counts[p.Severity]++
		}
		_, err := fmt.Fprintf(w, "%d problems: %d errors, %d warnings, %d info\n", len(problems), counts[Error], counts[Warning], counts[Info])
		return err
	}
	return nil
}

type jsonProblem struct {
	Check    string `json:"check"`
	Severity string `json:"severity"`
	Path     string `json:"path"`
	Line     int    `json:"line"`
	Column   int    `json:"column"`
	Message  string `json:"message"`
}

func writeJSON(w io.Writer, problems []Problem) error {
	out := make([]jsonProblem, 0, len(problems))
	for _, p := range problems {
		out = append(out, jsonProblem{p.Check, p.Severity.String(), p.Path, p.Pos.Line, p.Pos.Col, p.Message})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}

// writeGitHub prints GitHub Actions workflow commands, which annotate the pull request.
func writeGitHub(w io.Writer, problems []Problem) error {
	level := map[Severity]string{Error: "error", Warning: "warning", Info: "notice"}
	escape := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A")
	escapeProp := strings.NewReplacer("%", "%25", "\r", "%0D", "\n", "%0A", ":", "%3A", ",", "%2C")
	for _, p := range problems {
		if _, err := fmt.Fprintf(w, "::%s file=%s,line=%d,col=%d,title=%s::%s\n", level[p.Severity], escapeProp.Replace(p.Path), p.Pos.Line, p.Pos.Col, escapeProp.Replace(p.Check), escape.Replace(p.Message)); err != nil {
			return err
		}
	}
	return nil
}

// SARIF 2.1.0, the subset code-scanning tools read.
type sarifLog struct {
	Schema  string     `json:"$schema"`
	Version string     `json:"version"`
	Runs    []sarifRun `json:"runs"`
}

type sarifRun struct {
	Tool    sarifTool     `json:"tool"`
	Results []sarifResult `json:"results"`
}

type sarifTool struct {
	Driver sarifDriver `json:"driver"`
}

type sarifDriver struct {
	Name           string      `json:"name"`
	InformationURI string      `json:"informationUri"`
	Rules          []sarifRule `json:"rules"`
}

type sarifRule struct {
	ID               string       `json:"id"`
	ShortDescription sarifMessage `json:"shortDescription"`
	HelpURI          string       `json:"helpUri"`
}

type sarifMessage struct {
	Text string `json:"text"`
}

type sarifResult struct {
	RuleID    string          `json:"ruleId"`
	Level     string          `json:"level"`
	Message   sarifMessage    `json:"message"`
	Locations []sarifLocation `json:"locations"`
}

type sarifLocation struct {
	PhysicalLocation sarifPhysical `json:"physicalLocation"`
}

type sarifPhysical struct {
	ArtifactLocation sarifArtifact `json:"artifactLocation"`
	Region           sarifRegion   `json:"region"`
}

type sarifArtifact struct {
	URI string `json:"uri"`
}

type sarifRegion struct {
	StartLine   int `json:"startLine"`
	StartColumn int `json:"startColumn"`
}

// DocsURL is where the documentation page of each check lives.
const DocsURL = "https://github.com/gpuobs/gpuobs/blob/main/docs/checks/"

// DocPath is the documentation page of a check, relative to docs/checks/.
func DocPath(check string) string { return strings.ReplaceAll(check, "/", "-") + ".md" }

func writeSARIF(w io.Writer, problems []Problem) error {
	level := map[Severity]string{Error: "error", Warning: "warning", Info: "note"}
	driver := sarifDriver{Name: "gpuobs lint", InformationURI: "https://github.com/gpuobs/gpuobs"}
	docs := map[string]string{ReadCheck: "files that cannot be read"}
	for _, c := range Checks() {
		docs[c.Name()] = c.Doc()
	}
	names := make([]string, 0, len(docs))
	for n := range docs {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		driver.Rules = append(driver.Rules, sarifRule{ID: n, ShortDescription: sarifMessage{docs[n]}, HelpURI: DocsURL + DocPath(n)})
	}
	results := make([]sarifResult, 0, len(problems))
	for _, p := range problems {
		results = append(results, sarifResult{
			RuleID:  p.Check,
			Level:   level[p.Severity],
			Message: sarifMessage{p.Message},
			Locations: []sarifLocation{{PhysicalLocation: sarifPhysical{
				ArtifactLocation: sarifArtifact{URI: p.Path},
				Region:           sarifRegion{StartLine: max(p.Pos.Line, 1), StartColumn: max(p.Pos.Col, 1)},
			}}},
		})
	}
	log := sarifLog{Schema: "https://json.schemastore.org/sarif-2.1.0.json", Version: "2.1.0", Runs: []sarifRun{{Tool: sarifTool{driver}, Results: results}}}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(log)
}

type checkstyle struct {
	XMLName xml.Name         `xml:"checkstyle"`
	Version string           `xml:"version,attr"`
	Files   []checkstyleFile `xml:"file"`
}

type checkstyleFile struct {
	Name   string            `xml:"name,attr"`
	Errors []checkstyleError `xml:"error"`
}

type checkstyleError struct {
	Line     int    `xml:"line,attr"`
	Column   int    `xml:"column,attr"`
	Severity string `xml:"severity,attr"`
	Message  string `xml:"message,attr"`
	Source   string `xml:"source,attr"`
}

func writeCheckstyle(w io.Writer, problems []Problem) error {
	out := checkstyle{Version: "4.3"}
	index := map[string]int{}
	for _, p := range problems {
		i, ok := index[p.Path]
		if !ok {
			i = len(out.Files)
			index[p.Path] = i
			out.Files = append(out.Files, checkstyleFile{Name: p.Path})
		}
		out.Files[i].Errors = append(out.Files[i].Errors, checkstyleError{p.Pos.Line, p.Pos.Col, p.Severity.String(), p.Message, "gpuobs." + p.Check})
	}
	if _, err := io.WriteString(w, xml.Header); err != nil {
		return err
	}
	enc := xml.NewEncoder(w)
	enc.Indent("", "  ")
	if err := enc.Encode(out); err != nil {
		return err
	}
	_, err := io.WriteString(w, "\n")
	return err
}

// Summary says what lint read (files, rule groups, rules, dashboards, queries) and what it
// skipped and why (queries of other data sources, files with nothing to read), ending
// "; no problems" when there were none.
func Summary(files []*source.File, problems int) string {
	var groups, rules, dashboards, queries, other int
	var empty []string
	for _, f := range files {
		groups += len(f.Groups)
		rules += len(f.Rules)
		if f.Dashboard != nil {
			dashboards++
			queries += len(f.Dashboard.Queries)
			other += f.Dashboard.OtherQueries
		}
		if f.Err == nil && len(f.Groups) == 0 && f.Dashboard == nil && len(f.Embedded) == 0 {
			empty = append(empty, f.Path)
		}
	}
	s := fmt.Sprintf("checked %d files: %d rule groups, %d rules, %d dashboards, %d dashboard queries", len(files), groups, rules, dashboards, queries)
	if other > 0 {
		s += fmt.Sprintf(" (and %d queries of other data sources, such as Loki, not read)", other)
	}
	if len(empty) > 0 {
		shown := empty[:min(len(empty), 3)]
		more := ""
		if len(empty) > len(shown) {
			more = fmt.Sprintf(" and %d more", len(empty)-len(shown))
		}
		s += fmt.Sprintf("; skipped %d with no rule groups, PrometheusRule or dashboard (%s%s)", len(empty), strings.Join(shown, ", "), more)
	}
	if problems == 0 {
		s += "; no problems"
	}
	return s
}
