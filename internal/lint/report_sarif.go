package lint

import (
	"io"
	"sort"

	"github.com/gpuobs/gpuobs/internal/report"
)

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

// sarifReporter writes a SARIF log, which code-scanning tools read: every check as a rule
// with its documentation page, every problem as a result.
type sarifReporter struct{}

func (sarifReporter) Format() string { return "sarif" }

func (sarifReporter) Write(w io.Writer, r Result) error {
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
	results := make([]sarifResult, 0, len(r.Problems))
	for _, p := range r.Problems {
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
	return report.WriteJSON(w, log)
}
