package catalog

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	jsonnet "github.com/google/go-jsonnet"
	"github.com/google/go-jsonnet/ast"

	"github.com/gpuobs/gpuobs/internal/conventions"
	"github.com/gpuobs/gpuobs/internal/model"
)

// fillNative is the catalog's query templating (lib/expr.libsonnet's e.fill) in Go: the
// template with each $(name) replaced by pieces[name], a number written as Jsonnet's +
// writes it. A name pieces lacks is an error; pieces the template does not name are left
// out. In Jsonnet the same costs a closure call and a string replacement per piece, a fifth
// of the catalog's evaluation.
var fillNative = &jsonnet.NativeFunction{
	Name:   "fill",
	Params: ast.Identifiers{"template", "pieces"},
	Func: func(args []any) (any, error) {
		template, ok := args[0].(string)
		if !ok {
			return nil, fmt.Errorf("fill: the template is a %T, not a string", args[0])
		}
		pieces, ok := args[1].(map[string]any)
		if !ok {
			return nil, fmt.Errorf("fill: the pieces are a %T, not an object", args[1])
		}
		return fill(strings.TrimRight(template, "\n"), pieces)
	},
}

// numNative is lib/expr.libsonnet's e.num in Go: the shortest decimal that reads back as
// the number (0.95, not the 0.94999999999999996 std.toString writes), for numbers in alert
// text, runbooks and panel queries. The same search in Jsonnet (rounding at one decimal more
// until the number came back) was about a tenth of the expressions the catalog's evaluation ran.
var numNative = unaryNative("num", "x", "a number", func(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) })

// signalNative is lib/names.libsonnet's signal in Go: conventions.SignalName itself, so the
// names alert expressions read are the names the recording rules get (Jsonnet's
// std.asciiLower goes a character at a time).
var signalNative = unaryNative("signal", "field", "a field name", conventions.SignalName)

// unaryNative is a native function of one argument of type T (what names it in the error for
// another type).
func unaryNative[T any](name, param, what string, f func(T) string) *jsonnet.NativeFunction {
	return &jsonnet.NativeFunction{
		Name:   name,
		Params: ast.Identifiers{ast.Identifier(param)},
		Func: func(args []any) (any, error) {
			x, ok := args[0].(T)
			if !ok {
				return nil, fmt.Errorf("%s: %v is a %T, not %s", name, args[0], args[0], what)
			}
			return f(x), nil
		},
	}
}

// fill replaces each $(name) of template with its piece; a name pieces lacks stays, and the
// error shows the query with every piece it has.
func fill(template string, pieces map[string]any) (string, error) {
	var b strings.Builder
	b.Grow(len(template))
	unfilled := false
	rest := template
	for {
		i := strings.Index(rest, "$(")
		end := -1
		if i >= 0 {
			end = strings.IndexByte(rest[i:], ')')
		}
		if i < 0 || end < 0 {
			b.WriteString(rest)
			break
		}
		b.WriteString(rest[:i])
		name := rest[i+2 : i+end]
		switch v := pieces[name].(type) {
		case string:
			b.WriteString(v)
		case float64:
			b.WriteString(jsonnetNumber(v))
		case nil:
			unfilled = true
			b.WriteString(rest[i : i+end+1])
		default:
			return "", fmt.Errorf("fill: piece %s is a %T, not a string or a number", name, v)
		}
		rest = rest[i+end+1:]
	}
	if unfilled || strings.Contains(rest, "$(") {
		return "", fmt.Errorf("unfilled piece in query: %s", b.String())
	}
	return b.String(), nil
}

// jsonnetNumber writes a number as Jsonnet's std.toString and + do.
func jsonnetNumber(v float64) string {
	if v == math.Floor(v) {
		return fmt.Sprintf("%.0f", v)
	}
	return fmt.Sprintf("%.17g", v)
}

// expandHistograms writes out the histogram scenarios of the catalog's cases (histograms.series
// in the catalog describes them; model.HistogramSeries writes their series, in Go, where the
// Jsonnet that did cost a sixth of the catalog's evaluation).
func expandHistograms(m *model.Model) {
	expand := func(series []model.CaseSeries) []model.CaseSeries {
		var out []model.CaseSeries
		for _, s := range series {
			if s.Histogram == nil {
				out = append(out, s)
				continue
			}
			out = append(out, model.HistogramSeries(s.Metric, s.Labels, *s.Histogram, m.Prometheus.NativeHistograms)...)
		}
		return out
	}
	for name, a := range m.Alerts {
		for i := range a.Tests {
			a.Tests[i].Series = expand(a.Tests[i].Series)
			a.Tests[i].Extra = expand(a.Tests[i].Extra)
		}
		m.Alerts[name] = a
	}
	for name, r := range m.Records {
		for i := range r.Tests {
			r.Tests[i].Series = expand(r.Tests[i].Series)
		}
		m.Records[name] = r
	}
}
