package cli

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/scrape"
)

// withScrapes checks the catalog against saved scrapes (lint --scrape) and takes the fields
// they hold as the exporter's collected set.
func withScrapes(m *model.Model, files []string) (*model.Model, error) {
	in, conflicts, err := readScrapes(files)
	if err != nil {
		return nil, err
	}
	if err := profileAgainstScrapes(m, files, in); err != nil {
		return nil, fmt.Errorf("the catalog does not match what the exporters send:\n%w", err)
	}
	if len(conflicts) > 0 {
		return nil, fmt.Errorf("the scrapes disagree with each other:\n%s", strings.Join(conflicts, "\n"))
	}
	m.Exporter.Deployed = map[string]bool{}
	for _, f := range in.Fields {
		m.Exporter.Deployed[f] = true
	}
	return m, nil
}

// profileAgainstScrapes checks the catalog's label profile against saved scrapes of the
// exporters (lint --scrape): the host label, where pod attribution arrives, the exporter
// version and the job. Each disagreement names the scrape line that shows it and the setting
// that fixes it; rules linted against a profile the fleet does not send would say nothing true.
func profileAgainstScrapes(m *model.Model, files []string, in *scrape.Install) error {
	var problems []error
	// at is the first sample line holding needle, as file:line.
	at := func(needle string) string {
		for _, f := range files {
			data, err := os.ReadFile(f)
			if err != nil {
				continue
			}
			for i, line := range bytes.Split(data, []byte("\n")) {
				if !bytes.HasPrefix(line, []byte("#")) && bytes.Contains(line, []byte(needle)) {
					return fmt.Sprintf("%s:%d", f, i+1)
				}
			}
		}
		return strings.Join(files, ", ")
	}
	// A curl shows the exporter's own host label, which Prometheus may relabel (labels.host);
	// a stored text shows what the rules read.
	host, reads := m.Exporter.HostLabel, "the exporter profile names"
	if in.Stored() {
		host, reads = m.Labels.Host, "the catalog reads"
	}
	if in.HostLabel != "" && in.HostLabel != host {
		problems = append(problems, fmt.Errorf("%s: the series name the node %s, %s %s (exporter.version %s): set exporter.version to %s, or exporter.hostLabel", at(in.HostLabel+`="`), in.HostLabel, reads, host, m.Exporter.Version, in.Version))
	} else if in.Version != m.Exporter.Version {
		problems = append(problems, fmt.Errorf("%s: the scrapes show dcgm-exporter %s (%s), the catalog reads %s: set exporter.version to %s", strings.Join(files, ", "), in.Version, in.VersionEvidence, m.Exporter.Version, in.Version))
	}
	// (A cut text shows only some families: it does not tell.)
	if len(in.Cut()) == 0 && !slices.ContainsFunc(m.Exporter.HealthFields, func(f string) bool { return slices.Contains(in.Fields, f) }) {
		problems = append(problems, fmt.Errorf("%s: the GPUs send none of the health fields (exporter.healthFields: %s), which tell a GPU is there: add one they send", strings.Join(files, ", "), strings.Join(m.Exporter.HealthFields, ", ")))
	}
	for _, f := range in.Fields {
		field, known := m.Fields[f]
		if !known {
			continue
		}
		b := m.Units[field.Unit].Bounds
		if r := in.Values[f]; len(b) == 2 && (r[0] < b[0] || r[1] > b[1]) {
			problems = append(problems, fmt.Errorf("%s: %s reads %g to %g, beyond the %s the catalog reads it in (%g to %g): the exporter sends another unit (dcgm-exporter 4.9 changed the units of several fields): set exporter.version to the version your exporter runs", in.Lines[f], f, r[0], r[1], field.Unit, b[0], b[1]))
		}
	}
	for _, job := range in.Jobs {
		if job != m.Exporter.Job {
			problems = append(problems, fmt.Errorf("%s: the series carry job %s, the catalog watches %s: set exporter.job", at(`job="`+job+`"`), job, m.Exporter.Job))
		}
	}
	return errors.Join(problems...)
}
