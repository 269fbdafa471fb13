package semdiff

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gpuobs/gpuobs/internal/escape"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/report"
)

// Reporters are diff's output formats, in the order --format lists them; each reporter is a
// file of its own (report_<format>.go), json the shared one.
var Reporters = report.Registry[*Report]{textReporter{}, markdownReporter{}, report.JSON[*Report]{}}

// counts is how many changes of each kind a list holds.
func counts[T any](list []T, kind func(T) string) (changed, added, removed int) {
	for _, c := range list {
		switch kind(c) {
		case Changed:
			changed++
		case Added:
			added++
		case Removed:
			removed++
		}
	}
	return changed, added, removed
}

// summaryRows are the summary's rows: what, changed, added, removed.
func summaryRows(r *Report) [][4]string {
	row := func(what string, c, a, d int) [4]string {
		return [4]string{what, fmt.Sprint(c), fmt.Sprint(a), fmt.Sprint(d)}
	}
	ac, aa, ar := counts(r.Alerts, func(c AlertChange) string { return c.Change })
	rc, ra, rr := counts(r.Records, func(c RecordChange) string { return c.Change })
	pc, pa, pr := counts(r.Panels, func(c PanelChange) string { return c.Change })
	cc, ca, cr := counts(r.Counters, func(c CounterChange) string { return c.Change })
	nc, na, nr := counts(r.Receivers, func(c ReceiverChange) string { return c.Change })
	fc, fa, fr := counts(r.Files, func(c FileChange) string { return c.Change })
	return [][4]string{
		row("alerts", ac, aa, ar),
		row("recording rules", rc, ra, rr),
		row("dashboard panels", pc, pa, pr),
		row("counter fields", cc, ca, cr),
		row("receivers", nc, na, nr),
		row("other generated files", fc, fa, fr),
	}
}

// tierOf is the tier of an alert change, from its head side (base when removed).
func tierOf(c AlertChange) string {
	a := c.Head
	if a == nil {
		a = c.Base
	}
	return model.Severity(a.Labels["severity"]).Tier()
}

// routing describes where an alert goes on one side.
func routing(a *Alert) string {
	if a == nil {
		return "absent"
	}
	s := "to " + orNone(a.Receivers)
	if len(a.SilencedBy) > 0 {
		s += ", silenced by " + strings.Join(lines(a.SilencedBy), ", ")
	} else {
		s += ", silenced by no alert"
	}
	return s
}

func orNone(list []string) string {
	if len(list) == 0 {
		return "no receiver"
	}
	return strings.Join(lines(list), ", ")
}

// lines puts each name on one line (escape.Line).
func lines(names []string) []string {
	out := make([]string, len(names))
	for i, n := range names {
		out[i] = escape.Line(n)
	}
	return out
}

// orAbsent shows an empty value as absent.
func orAbsent(s string) string {
	if s == "" {
		return "(absent)"
	}
	return strconv.Quote(s)
}
