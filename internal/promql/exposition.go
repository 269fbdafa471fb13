package promql

import (
	"bytes"
	"regexp"
	"sort"
	"strconv"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Sample is one sample of a /metrics text: its metric, labels and value.
type Sample struct {
	Metric string
	Labels map[string]string
	Value  float64
}

// ExpositionError is a /metrics text Prometheus' parser rejects (and with it the whole
// scrape): the line (0 when the parser names none) and what is wrong there.
type ExpositionError struct {
	Line int
	Msg  string
}

func (e *ExpositionError) Error() string { return e.Msg }

// expositionLine finds the line in the parser's "text format parsing error in line N: ...".
var expositionLine = regexp.MustCompile(`^text format parsing error in line (\d+): (.*)$`)

// ParseExposition reads a /metrics text in Prometheus' text format with Prometheus' own parser,
// and returns its samples, by metric name.
func ParseExposition(data []byte) ([]Sample, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(data))
	if err != nil {
		if m := expositionLine.FindStringSubmatch(err.Error()); m != nil {
			line, _ := strconv.Atoi(m[1]) // digits, by the expression
			return nil, &ExpositionError{Line: line, Msg: m[2]}
		}
		return nil, &ExpositionError{Msg: err.Error()}
	}
	names := make([]string, 0, len(families))
	for name := range families {
		names = append(names, name)
	}
	sort.Strings(names)
	var out []Sample
	for _, name := range names {
		for _, m := range families[name].GetMetric() {
			labels := map[string]string{}
			for _, l := range m.GetLabel() {
				labels[l.GetName()] = l.GetValue()
			}
			out = append(out, Sample{Metric: name, Labels: labels, Value: m.GetGauge().GetValue() + m.GetCounter().GetValue() + m.GetUntyped().GetValue()})
		}
	}
	return out, nil
}
