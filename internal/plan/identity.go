package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
)

// identities gives every alert the identity its scenarios, runbook and inhibit rules assume,
// from the labels its expression can yield: an alert without one gets the catalog's alert
// identity less the labels its expression never carries; an alert that names one fails when
// a label of it can never reach the alert (neither from the expression nor its static labels).
func identities(m *model.Model, labels *Labels) error {
	var problems []string
	for _, name := range model.SortedKeys(m.Alerts) {
		a := m.Alerts[name]
		n, err := promql.Parse(a.Expr)
		if err != nil {
			return fmt.Errorf("alerts.%s.expr: %w", name, err)
		}
		yields := labels.Of(n)
		reaches := func(label string) bool {
			_, static := a.Labels[label]
			return static || yields.MayHave(label)
		}
		if len(a.Identity) == 0 {
			a.Identity = slices.DeleteFunc(slices.Clone(m.Identity.Alert), func(l string) bool { return !reaches(l) })
			m.Alerts[name] = a
			continue
		}
		var never []string
		for _, l := range a.Identity {
			if !reaches(l) {
				never = append(never, l)
			}
		}
		if len(never) > 0 {
			problems = append(problems, fmt.Sprintf("alerts.%s.identity: %s never reach the alert: its expression yields %s; keep them in the expression, or leave them out of identity (or leave identity out: it is then derived)",
				name, strings.Join(never, ", "), strings.Join(yields.Sorted(), ", ")))
		}
	}
	if len(problems) > 0 {
		return fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	return nil
}
