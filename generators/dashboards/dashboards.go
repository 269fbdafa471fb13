// Package dashboards generates the Grafana dashboards L1 (fleet) to L5 (one GPU) from the
// catalog with the Grafana foundation SDK's builders, at run time.
package dashboards

import (
	"fmt"
	"strings"

	"github.com/grafana/grafana-foundation-sdk/go/bargauge"
	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/variants"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/grafana/grafana-foundation-sdk/go/heatmap"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/stat"
	"github.com/grafana/grafana-foundation-sdk/go/table"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"

	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/plan"
)

// Tag marks every gpuobs dashboard; each also carries its level (L1..L5) as a tag, which
// gpuobs lint's budgets use, and its install's UID prefix, which the links between the levels
// use.
const Tag = "gpuobs"

// tags are a dashboard's tags: gpuobs, its install's UID prefix and its level.
func tags(m *model.Model, level string) []string {
	if p := m.Deploy.Grafana.UIDPrefix; p != Tag {
		return []string{Tag, p, level}
	}
	return []string{Tag, level}
}

// panelHeight is the height of every panel, in grid units.
const panelHeight = 8

// What every dashboard of either schema shares: it refreshes every minute and opens on the last
// six hours; an annotation query steps by a minute.
const (
	refresh        = "1m"
	timeFrom       = "now-6h"
	annotationStep = "1m"
)

// Generate renders one JSON file per dashboard level, when the classic schema is written.
func Generate(p *plan.Plan) ([]emit.File, error) {
	if !p.Model.Deploy.Grafana.Writes(model.SchemaClassic) {
		return nil, nil
	}
	return render(p.Model, classic, func(level string, body []byte) emit.File {
		return emit.File{Path: output.Dashboard(level), Content: body}
	})
}

// Sidecar renders each dashboard as a ConfigMap that Grafana's sidecar loads (label
// grafana_dashboard by default), when deploy.grafana.sidecar is enabled.
func Sidecar(p *plan.Plan) ([]emit.File, error) {
	g := p.Model.Deploy.Grafana
	if !g.Sidecar.Enabled {
		return nil, nil
	}
	return render(p.Model, classic, func(level string, body []byte) emit.File {
		name := strings.ToLower(level)
		return emit.YAML(output.SidecarDashboard(level), emit.MustYAML(map[string]any{
			"apiVersion": "v1",
			"kind":       "ConfigMap",
			"metadata":   map[string]any{"name": g.UIDPrefix + "-" + name, "namespace": g.Sidecar.Namespace, "labels": g.Sidecar.Labels},
			"data":       map[string]string{name + ".json": string(body)},
		}))
	})
}

// classic builds a dashboard level in the classic schema.
func classic(m *model.Model, level string) (any, error) { return Build(m, level) }

// render builds every dashboard level with build and makes a file of each with file.
func render(m *model.Model, build func(*model.Model, string) (any, error), file func(level string, body []byte) emit.File) ([]emit.File, error) {
	var files []emit.File
	for _, level := range model.SortedKeys(m.Dashboards) {
		d, err := build(m, level)
		if err != nil {
			return nil, fmt.Errorf("dashboard %s: %w", level, err)
		}
		body, err := emit.SortedJSON(d)
		if err != nil {
			return nil, fmt.Errorf("dashboard %s: %w", level, err)
		}
		files = append(files, file(level, body))
	}
	return files, nil
}

// datasource is the data source every query uses: the dashboard's datasource variable.
var datasource = common.DataSourceRef{Type: cog.ToPtr("prometheus"), Uid: cog.ToPtr("${datasource}")}

// Build assembles one dashboard level with the SDK's builders.
func Build(m *model.Model, level string) (dashboard.Dashboard, error) {
	d := m.Dashboards[level]
	b := dashboard.NewDashboardBuilder(d.Title).
		Uid(d.UID).
		Description(output.Header+" "+d.Description).
		Tags(tags(m, level)).
		Refresh(refresh).
		Time(timeFrom, "now").
		Timezone(common.TimeZoneUtc).
		Tooltip(dashboard.DashboardCursorSyncCrosshair).
		WithVariable(dashboard.NewDatasourceVariableBuilder("datasource").Label("Data source").Type("prometheus"))
	for _, v := range d.Variables {
		b.WithVariable(dashboard.NewQueryVariableBuilder(v.Name).
			Label(v.Label).
			Query(dashboard.StringOrMap{String: cog.ToPtr(v.Query)}).
			Datasource(datasource).
			Refresh(dashboard.VariableRefreshOnTimeRangeChanged).
			Sort(dashboard.VariableSortAlphabeticalAsc).
			Multi(v.Multi).
			IncludeAll(v.Multi))
	}
	for _, target := range d.Links {
		b.Link(dashboard.NewDashboardLinkBuilder(m.Dashboards[target].Title).
			Type(dashboard.DashboardLinkTypeDashboards).
			Tags([]string{m.Deploy.Grafana.UIDPrefix, target}).
			IncludeVars(true).
			KeepTime(true))
	}
	for _, a := range d.Annotations {
		b.Annotation(dashboard.NewAnnotationQueryBuilder().
			Name(a.Name).
			Datasource(datasource).
			Enable(true).
			IconColor(a.Color).
			Expr(a.Expr).
			TitleFormat(a.Title).
			Step(annotationStep))
	}
	if m.Deploy.Grafana.Editable {
		b.Editable()
	} else {
		b.Readonly()
	}
	id := uint32(0)
	for _, r := range d.Rows {
		id++
		b.WithRow(dashboard.NewRowBuilder(r.Title).Id(id))
		for _, p := range r.Panels {
			id++
			built, err := panel(m, p, id)
			if err != nil {
				return dashboard.Dashboard{}, fmt.Errorf("panel %q: %w", p.Title, err)
			}
			b.WithPanel(built)
		}
	}
	return b.Build()
}

// options are the settings every panel type shares. The SDK has one builder type per panel
// type; each method returns its own builder, hence the type parameter.
type options[T any] interface {
	cog.Builder[dashboard.Panel]
	Id(uint32) T
	Title(string) T
	Description(string) T
	Datasource(common.DataSourceRef) T
	Span(uint32) T
	Height(uint32) T
	Unit(string) T
	Min(float64) T
	Max(float64) T
	Thresholds(cog.Builder[dashboard.ThresholdsConfig]) T
	WithTarget(cog.Builder[variants.Dataquery]) T
	DataLinks([]cog.Builder[dashboard.DashboardLink]) T
}

func configure[T options[T]](m *model.Model, b T, p model.Panel, id uint32, instant bool, format prometheus.PromQueryFormat) (cog.Builder[dashboard.Panel], error) {
	b.Id(id).Title(p.Title).Description(p.Description).Datasource(datasource).Span(uint32(p.Width)).Height(panelHeight).Unit(p.Unit)
	setRange(b, p)
	if len(p.Thresholds) > 0 {
		steps, err := thresholds(p.Thresholds)
		if err != nil {
			return nil, err
		}
		b.Thresholds(dashboard.NewThresholdsConfigBuilder().Mode(dashboard.ThresholdsModeAbsolute).Steps(steps))
	}
	for i, q := range p.Queries {
		t := prometheus.NewDataqueryBuilder().RefId(string(rune('A' + i))).Expr(q.Expr).LegendFormat(q.Legend).Datasource(datasource)
		if instant {
			t.Instant()
		}
		if format != "" {
			t.Format(format)
		}
		b.WithTarget(t)
	}
	if p.Drill != "" {
		b.DataLinks([]cog.Builder[dashboard.DashboardLink]{drillLink(m, p)})
	}
	return b, nil
}

// ranged are the panel builders of either schema that take a value range.
type ranged[T any] interface {
	Min(float64) T
	Max(float64) T
}

// setRange gives a panel the catalog's range, where it has one.
func setRange[T ranged[T]](b T, p model.Panel) {
	if p.Min != nil {
		b.Min(*p.Min)
	}
	if p.Max != nil {
		b.Max(*p.Max)
	}
}

// panel builds a panel of the catalog's type.
func panel(m *model.Model, p model.Panel, id uint32) (cog.Builder[dashboard.Panel], error) {
	switch p.Type {
	case "timeseries":
		b := timeseries.NewPanelBuilder()
		if p.Stack {
			b.Stacking(common.NewStackingConfigBuilder().Mode(common.StackingModeNormal))
		}
		return configure(m, b, p, id, false, "")
	case "stat":
		return configure(m, stat.NewPanelBuilder(), p, id, true, "")
	case "bargauge":
		return configure(m, bargauge.NewPanelBuilder(), p, id, true, "")
	case "table":
		footer := common.NewTableFooterOptionsBuilder().Show(false).Reducer([]string{"sum"})
		return configure(m, table.NewPanelBuilder().Footer(footer), p, id, true, prometheus.PromQueryFormatTable)
	case "heatmap":
		return configure(m, heatmap.NewPanelBuilder().Calculate(false), p, id, false, prometheus.PromQueryFormatHeatmap)
	}
	return nil, fmt.Errorf("unknown panel type %q (timeseries, stat, bargauge, table, heatmap)", p.Type)
}

// thresholds converts the catalog's [value, color] steps; the first value is null.
func thresholds(steps [][2]any) ([]dashboard.Threshold, error) {
	out := make([]dashboard.Threshold, len(steps))
	for i, s := range steps {
		color, ok := s[1].(string)
		if !ok {
			return nil, fmt.Errorf("threshold %d: color %v is not a string", i, s[1])
		}
		out[i].Color = color
		switch v := s[0].(type) {
		case nil:
			if i > 0 {
				return nil, fmt.Errorf("threshold %d: only the first step has no value", i)
			}
		case float64:
			out[i].Value = cog.ToPtr(v)
		default:
			return nil, fmt.Errorf("threshold %d: value %v is not a number", i, s[0])
		}
	}
	return out, nil
}

// drillLink opens a level with its variables taken from the clicked series' labels, the data
// source and the time range kept.
func drillLink(m *model.Model, p model.Panel) cog.Builder[dashboard.DashboardLink] {
	title, url := drillTarget(m, p)
	return dashboard.NewDashboardLinkBuilder(title).Url(url)
}

// drillTarget is the title and URL of the level a panel drills into.
func drillTarget(m *model.Model, p model.Panel) (title, url string) {
	target := m.Dashboards[p.Drill]
	params := []string{"${datasource:queryparam}", "${__url_time_range}"}
	for _, v := range model.SortedKeys(target.Vars) {
		label := target.Vars[v]
		if l, ok := p.DrillVars[v]; ok {
			label = l
		}
		params = append(params, fmt.Sprintf("var-%s=${__field.labels.%s}", v, label))
	}
	return target.Title, "/d/" + target.UID + "?" + strings.Join(params, "&")
}
