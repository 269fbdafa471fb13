package lint

import (
	"encoding/xml"
	"io"
)

// checkstyle is Checkstyle's XML report.
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

// checkstyleReporter writes Checkstyle's XML, which many CI servers read: the problems of each
// file under it.
type checkstyleReporter struct{}

func (checkstyleReporter) Format() string { return "checkstyle" }

func (checkstyleReporter) Write(w io.Writer, r Result) error {
	out := checkstyle{Version: "4.3"}
	index := map[string]int{}
	for _, p := range r.Problems {
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
