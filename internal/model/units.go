package model

import (
	"slices"
	"strings"
)

// Display is how Grafana shows a value: in the unit Grafana names Grafana, after multiplying
// the value by Scale (Grafana has no MHz: hertz with scale 1e6).
type Display struct {
	Grafana string  `json:"grafana"`
	Scale   float64 `json:"scale"`
}

// Unit is a unit of measure of the catalog's fields, as every reader of units sees it:
// dashboards show a value in it through its Display (a counter's rate through Rate), lint
// reads the unit a panel or a name claims, and synthetic series are made plausible for it.
type Unit struct {
	Display
	// Rate shows the per-second rate of a counter in the unit; every counter's unit has one.
	Rate *Display `json:"rate"`
	// Suffix is the metric-name suffix that claims the unit by Prometheus' naming conventions,
	// or "".
	Suffix string `json:"suffix"`
	// GrafanaAliases are other Grafana unit ids that show a value in this unit as it is.
	GrafanaAliases []string `json:"grafanaAliases"`
	// Bounds are the lowest and highest value in the unit (a ratio's 0 and 1), or nil.
	Bounds []float64 `json:"bounds"`
}

// unitless are Grafana's unit ids that claim no unit.
var unitless = []string{"none", "short", ""}

// Of is how a field's values show: its unit's display, or for a counter the display of its
// rate.
func (u Unit) Of(f Field) Display {
	if f.Kind == KindCounter && u.Rate != nil {
		return *u.Rate
	}
	return u.Display
}

// UnitOfGrafana is the unit a panel whose Grafana unit is id claims to show, or "" when the id
// claims no unit of the catalog.
func (m *Model) UnitOfGrafana(id string) string {
	if claims := m.GrafanaClaims()[id]; len(claims) > 0 {
		return claims[0]
	}
	return ""
}

// RateUnit is the unit of a counter's per-second rate: the catalog's unit that its rate's
// display shows as it is (the rate of joules is in watts), else unit/s (bytes/s).
func (m *Model) RateUnit(unit string) string {
	if r := m.Units[unit].Rate; r != nil && r.Scale == 1 {
		if u := m.UnitOfGrafana(r.Grafana); u != "" {
			return u
		}
	}
	return unit + "/s"
}

// UnitOfName is the unit a metric name's suffix claims, or "": the longest suffix that matches.
func (m *Model) UnitOfName(metric string) string {
	best := ""
	for _, name := range SortedKeys(m.Units) {
		if s := m.Units[name].Suffix; s != "" && strings.HasSuffix(metric, s) && (best == "" || len(s) > len(m.Units[best].Suffix)) {
			best = name
		}
	}
	return best
}

// GrafanaClaims lists, for every Grafana unit id that shows a unit's values as they are (its
// display at scale 1, its aliases), the units it claims, in name order: more than one is a
// catalog mistake.
func (m *Model) GrafanaClaims() map[string][]string {
	out := map[string][]string{}
	for _, name := range SortedKeys(m.Units) {
		u := m.Units[name]
		ids := slices.Clone(u.GrafanaAliases)
		if u.Scale == 1 && !slices.Contains(unitless, u.Grafana) {
			ids = append(ids, u.Grafana)
		}
		for _, id := range ids {
			out[id] = append(out[id], name)
		}
	}
	return out
}
