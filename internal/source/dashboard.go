package source

import (
	"bytes"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf16"

	"go.yaml.in/yaml/v3"

	"github.com/gpuobs/gpuobs/internal/promql"
)

// Dashboard is a Grafana dashboard: its tags (for its level) and its panel queries.
type Dashboard struct {
	Tags []string
	// Queries are the Prometheus expressions of every panel target.
	Queries []*Query
	// OtherQueries counts the targets of other data sources (Loki, Tempo, a SQL database),
	// which are not PromQL and are not read.
	OtherQueries int
	// SingleValue are the template variables that hold one value (not multi, no All): a
	// matcher on one pins its label.
	SingleValue map[string]bool
	// values are the values of the variables that stand for a value (custom, textbox,
	// constant), and dataSources the plugin type of each data-source variable.
	values, dataSources map[string]string
	// left is how many panels and targets the file may still hold (panelBudget at its start),
	// and over where it held one more.
	left *int
	over *yaml.Node
}

// panelBudget is how many panels and targets one file may hold, counting each time a YAML
// alias repeats them: real dashboards hold a few hundred, while ten aliases of ten at each of
// nine levels of rows (1 KB) hold a billion.
const panelBudget = 10_000

// spend counts a panel or target against the file's budget; false once it is spent, with where.
func (d *Dashboard) spend(n *yaml.Node) bool {
	if *d.left <= 0 {
		if d.over == nil {
			d.over = n
		}
		return false
	}
	*d.left--
	return true
}

// Query is one panel target's expression.
type Query struct {
	Panel string
	// Unit is the panel's Grafana unit (fieldConfig.defaults.unit), or "".
	Unit string
	Expr *Expr
}

// Level is the dashboard's level tag (L1..L5), or "".
func (d *Dashboard) Level() string {
	for _, t := range d.Tags {
		t = strings.TrimPrefix(strings.ToUpper(t), "LEVEL:")
		if len(t) == 2 && t[0] == 'L' && t[1] >= '1' && t[1] <= '5' {
			return t
		}
	}
	return ""
}

// dashboardKeys are the keys of which a Grafana dashboard has at least one: classic JSON, a
// dashboard resource.
var dashboardKeys = []string{"panels", "rows", "templating", "schemaVersion", "elements", "spec"}

// ReadDashboard reads a Grafana dashboard (bare, or wrapped in {"dashboard": ...}). JSON is
// read as YAML, which keeps the position of every value; a key given twice in an object is
// read at its last value, as Grafana's JSON readers keep it.
func ReadDashboard(path string, data []byte) *File {
	left := panelBudget
	return readDashboard(path, data, &left)
}

// readDashboard reads a dashboard that may hold at most *left panels and targets; a dashboard
// that holds more is refused, at the first one past the budget.
func readDashboard(path string, data []byte, left *int) *File {
	f := &File{Path: path, Lines: splitLines(data)}
	var doc yaml.Node
	if err := yaml.Unmarshal(utf16Escapes(data), &doc); err != nil {
		f.Err = readError(data, err)
		return f
	}
	root := &doc
	if root.Kind == yaml.DocumentNode && len(root.Content) > 0 {
		root = root.Content[0]
	}
	if inner := mapValue(root, "dashboard"); inner != nil {
		root = inner
	}
	// JSON that is not a dashboard (a list, a package manifest: an object with none of a
	// dashboard's keys) holds nothing to read: the file is skipped as such, and the summary
	// names it. (Grafana refuses such a file too: nothing is loaded unseen.)
	if root == nil || root.Kind != yaml.MappingNode || !slices.ContainsFunc(dashboardKeys, func(k string) bool { return mapValue(root, k) != nil }) {
		return f
	}
	d := &Dashboard{SingleValue: map[string]bool{}, values: map[string]string{}, dataSources: map[string]string{}, left: left}
	d.read(root, f.Lines)
	if d.over != nil {
		f.Err = &ReadError{Pos: Pos{d.over.Line, d.over.Column}, Message: fmt.Sprintf("the dashboard holds more than %d panels and targets, counting each time a YAML alias repeats them: not read", panelBudget)}
		return f
	}
	f.Dashboard = d
	return f
}

// read reads a dashboard's root object: classic JSON, or a dashboard resource.
func (d *Dashboard) read(root *yaml.Node, lines []string) {
	if api := scalar(mapValue(root, "apiVersion")); strings.HasPrefix(api, "dashboard.grafana.app/") {
		// A Grafana 12/13 dashboard resource: v0 and v1 hold the classic JSON in spec, v2 its
		// elements and layout.
		root = mapValue(root, "spec")
		if strings.HasPrefix(api, "dashboard.grafana.app/v2") {
			d.readV2(root, lines)
			return
		}
	}
	d.readVariables(root)
	if tags := mapValue(root, "tags"); tags != nil {
		for _, t := range tags.Content {
			d.Tags = append(d.Tags, t.Value)
		}
	}
	d.readPanels(mapValue(root, "panels"), lines)
	if rows := mapValue(root, "rows"); rows != nil {
		for _, row := range rows.Content {
			d.readPanels(mapValue(row, "panels"), lines)
		}
	}
}

// readV2 reads a v2 dashboard resource's spec: its tags, variables (each a kind and a spec)
// and the queries of its elements (each panel's data.spec.queries, a query's data source in
// its group (v2beta1), its kind (v2alpha1) or its datasource's type).
func (d *Dashboard) readV2(spec *yaml.Node, lines []string) {
	if tags := mapValue(spec, "tags"); tags != nil {
		for _, t := range tags.Content {
			d.Tags = append(d.Tags, t.Value)
		}
	}
	if list := mapValue(spec, "variables"); list != nil {
		for _, v := range list.Content {
			vs := mapValue(v, "spec")
			d.readVariable(v2VariableKinds[scalar(mapValue(v, "kind"))], vs, scalar(mapValue(vs, "query"))+scalar(mapValue(vs, "pluginId")))
		}
	}
	for _, kv := range pairs(mapValue(spec, "elements")) {
		if !d.spend(kv[1]) {
			return
		}
		panel := mapValue(kv[1], "spec")
		title := scalar(mapValue(panel, "title"))
		unit := scalar(mapValue(mapValue(mapValue(mapValue(mapValue(panel, "vizConfig"), "spec"), "fieldConfig"), "defaults"), "unit"))
		queries := mapValue(mapValue(mapValue(panel, "data"), "spec"), "queries")
		if queries == nil {
			continue
		}
		for _, pq := range queries.Content {
			if !d.spend(pq) {
				return
			}
			pqs := mapValue(pq, "spec")
			q := mapValue(pqs, "query")
			kind := scalar(mapValue(q, "group"))
			if k := scalar(mapValue(q, "kind")); kind == "" && k != "DataQuery" {
				kind = k
			}
			if kind == "" {
				kind = d.dataSourceType(mapValue(pqs, "datasource"))
			}
			d.addQuery(title, unit, kind, mapValue(mapValue(q, "spec"), "expr"), lines)
		}
	}
}

// addQuery adds a target's expression when its data source (a plugin type) speaks PromQL, and
// counts it among the other data sources' otherwise.
func (d *Dashboard) addQuery(title, unit, kind string, e *yaml.Node, lines []string) {
	if e == nil || e.Kind != yaml.ScalarNode || strings.TrimSpace(e.Value) == "" {
		return
	}
	if !promQLSource(kind) {
		d.OtherQueries++
		return
	}
	parsed, edits := promql.SubstituteGrafanaVariables(e.Value, d.values)
	d.Queries = append(d.Queries, &Query{Panel: title, Unit: unit, Expr: newExprWith(e.Value, parsed, edits, e, lines)})
}

// readVariables reads the template variables of a classic dashboard.
func (d *Dashboard) readVariables(root *yaml.Node) {
	if list := mapValue(mapValue(root, "templating"), "list"); list != nil {
		for _, v := range list.Content {
			d.readVariable(scalar(mapValue(v, "type")), v, scalar(mapValue(v, "query")))
		}
	}
}

// v2VariableKinds are the kinds of a v2 dashboard's variables, as a classic dashboard types them.
var v2VariableKinds = map[string]string{"DatasourceVariable": "datasource", "CustomVariable": "custom", "TextVariable": "textbox", "ConstantVariable": "constant"}

// readVariable reads one template variable, of kind (classic type) with its fields in v:
// whether it holds one value (neither multi-value nor with an All option), the value of one
// that stands for a value (custom, textbox and constant variables: the current value, else
// the first option, else the first value of the query), and the plugin type a data-source
// variable selects (its query).
func (d *Dashboard) readVariable(kind string, v *yaml.Node, query string) {
	name := scalar(mapValue(v, "name"))
	if name == "" {
		return
	}
	if scalar(mapValue(v, "multi")) != "true" && scalar(mapValue(v, "includeAll")) != "true" {
		d.SingleValue[name] = true
	}
	switch kind {
	case "datasource":
		d.dataSources[name] = query
	case "custom", "textbox", "constant":
		// A current value of "" is a choice (a "none" option); only a variable without one
		// falls back to its first option or the first value of its query.
		current := mapValue(mapValue(v, "current"), "value")
		value := scalar(current)
		if current == nil || value == "$__all" {
			value = scalar(mapValue(firstItem(mapValue(v, "options")), "value"))
			if value == "" {
				value, _, _ = strings.Cut(query, ",")
			}
		}
		d.values[name] = strings.TrimSpace(value)
	}
}

// readPanels adds the queries of a list of panels, and of the panels nested in them (rows).
// A target is read when its data source (its own, else its panel's) is Prometheus or not known
// to be another kind; the targets of other data sources are counted.
func (d *Dashboard) readPanels(list *yaml.Node, lines []string) {
	if list == nil || list.Kind != yaml.SequenceNode {
		return
	}
	for _, p := range list.Content {
		if !d.spend(p) {
			return
		}
		title, unit := scalar(mapValue(p, "title")), scalar(mapValue(mapValue(mapValue(p, "fieldConfig"), "defaults"), "unit"))
		panelSource := d.dataSourceType(mapValue(p, "datasource"))
		if targets := mapValue(p, "targets"); targets != nil && targets.Kind == yaml.SequenceNode {
			for _, t := range targets.Content {
				if !d.spend(t) {
					return
				}
				kind := panelSource
				if own := d.dataSourceType(mapValue(t, "datasource")); own != "" {
					kind = own
				}
				d.addQuery(title, unit, kind, mapValue(t, "expr"), lines)
			}
		}
		d.readPanels(mapValue(p, "panels"), lines)
	}
}

// dataSourceType is the plugin type a panel's or target's datasource names: its type, or the
// type a data-source variable it refers to selects; "" when it says none (a data source given
// by name only) and "mixed" for Grafana's mixed data source.
func (d *Dashboard) dataSourceType(n *yaml.Node) string {
	if n == nil {
		return ""
	}
	ref, kind := n.Value, ""
	if n.Kind == yaml.MappingNode {
		ref, kind = scalar(mapValue(n, "uid")), scalar(mapValue(n, "type"))
	}
	if ref == "-- Mixed --" {
		return "mixed"
	}
	if name, ok := variableName(ref); ok && (kind == "" || kind == "datasource") {
		return d.dataSources[name]
	}
	return kind
}

// promQLSource reports whether queries of a data-source plugin type are PromQL: Prometheus and
// the plugins built on it (Amazon Managed Prometheus, Mimir and Thanos through the Prometheus
// plugin), a mixed panel's targets without their own, and a data source of unknown type.
func promQLSource(kind string) bool {
	return kind == "" || kind == "mixed" || strings.Contains(strings.ToLower(kind), "prometheus")
}

// variableName is the variable a data-source reference names ($ds, ${ds}), if it is one.
func variableName(ref string) (string, bool) {
	if name, ok := strings.CutPrefix(ref, "${"); ok {
		name, _, _ = strings.Cut(strings.TrimSuffix(name, "}"), ":")
		return name, true
	}
	if name, ok := strings.CutPrefix(ref, "$"); ok {
		return name, true
	}
	return "", false
}

// scalar is a node's value when it is a scalar, else "".
func scalar(n *yaml.Node) string {
	if n == nil || n.Kind != yaml.ScalarNode {
		return ""
	}
	return n.Value
}

// firstItem is the first item of a sequence, or nil.
func firstItem(n *yaml.Node) *yaml.Node {
	if n == nil || n.Kind != yaml.SequenceNode || len(n.Content) == 0 {
		return nil
	}
	return n.Content[0]
}

// utf16Escapes rewrites the escapes JSON writes for a character beyond the Basic Multilingual
// Plane (an emoji: "\ud83d\udfe2", as Python's json.dump writes it), which YAML, whose reader
// reads the dashboards, refuses: a surrogate pair becomes YAML's 8-digit escape (\U0001F7E2,
// two columns shorter: later positions on that line shift), a lone surrogate U+FFFD, as JSON
// decoders read it. An escaped backslash (\\u) is left as it is.
func utf16Escapes(data []byte) []byte {
	if !bytes.Contains(data, []byte(`\u`)) {
		return data
	}
	out := make([]byte, 0, len(data))
	for i := 0; i < len(data); i++ {
		if data[i] != '\\' || i+1 == len(data) {
			out = append(out, data[i])
			continue
		}
		r, ok := escapedRune(data, i)
		if !ok || !utf16.IsSurrogate(r) {
			// Any other escape, \\ included, is copied whole.
			out = append(out, data[i], data[i+1])
			i++
			continue
		}
		if low, ok := escapedRune(data, i+6); ok && utf16.DecodeRune(r, low) != unicode.ReplacementChar {
			out = fmt.Appendf(out, `\U%08X`, utf16.DecodeRune(r, low))
			i += 11
			continue
		}
		out = append(out, `\ufffd`...)
		i += 5
	}
	return out
}

// escapedRune reads the \uXXXX escape at data[i:], if there is one.
func escapedRune(data []byte, i int) (rune, bool) {
	if i+6 > len(data) || data[i] != '\\' || data[i+1] != 'u' {
		return 0, false
	}
	v, err := strconv.ParseUint(string(data[i+2:i+6]), 16, 32)
	return rune(v), err == nil
}
