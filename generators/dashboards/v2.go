package dashboards

import (
	"fmt"

	"github.com/grafana/grafana-foundation-sdk/go/bargauge"
	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/common"
	"github.com/grafana/grafana-foundation-sdk/go/dashboardv2"
	"github.com/grafana/grafana-foundation-sdk/go/heatmap"
	"github.com/grafana/grafana-foundation-sdk/go/prometheus"
	"github.com/grafana/grafana-foundation-sdk/go/resource"
	"github.com/grafana/grafana-foundation-sdk/go/stat"
	"github.com/grafana/grafana-foundation-sdk/go/table"
	"github.com/grafana/grafana-foundation-sdk/go/timeseries"

	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/output"
	"github.com/gpuobs/gpuobs/internal/plan"
)

// GenerateV2 renders each dashboard level as a Grafana dashboard.grafana.app/v2 resource
// (dashboards/v2/<level>.json), when deploy.grafana.schemas has the v2 schema: the same panels,
// queries, variables, units, thresholds and links as the classic JSON, in elements and a rows
// layout.
func GenerateV2(p *plan.Plan) ([]emit.File, error) {
	if !p.Model.Deploy.Grafana.Writes(model.SchemaV2) {
		return nil, nil
	}
	return render(p.Model, v2Manifest, func(level string, body []byte) emit.File {
		return emit.File{Path: output.DashboardV2(level), Content: body}
	})
}

// v2Manifest is a dashboard level's v2 resource, named by its UID.
func v2Manifest(m *model.Model, level string) (any, error) {
	d, err := BuildV2(m, level)
	if err != nil {
		return nil, err
	}
	return resource.Manifest{ApiVersion: "dashboard.grafana.app/v2", Kind: resource.DashboardKind, Metadata: resource.Metadata{Name: m.Dashboards[level].UID}, Spec: d}, nil
}

// v2Datasource is the data source every v2 query uses: the dashboard's datasource variable.
func v2Datasource() cog.Builder[dashboardv2.Dashboardv2DataQueryKindDatasource] {
	return dashboardv2.NewDashboardv2DataQueryKindDatasourceBuilder().Name("${datasource}")
}

// BuildV2 assembles one dashboard level as a v2 dashboard with the SDK's builders.
func BuildV2(m *model.Model, level string) (dashboardv2.Dashboard, error) {
	d := m.Dashboards[level]
	b := dashboardv2.NewDashboardBuilder(d.Title).
		Description(output.Header + " " + d.Description).
		Tags(tags(m, level)).
		Editable(m.Deploy.Grafana.Editable).
		CursorSync(dashboardv2.DashboardCursorSyncCrosshair).
		TimeSettings(dashboardv2.NewTimeSettingsBuilder().From(timeFrom).To("now").AutoRefresh(refresh).Timezone("utc")).
		DatasourceVariable(dashboardv2.NewDatasourceVariableBuilder("datasource").Label("Data source").PluginId("prometheus"))
	for _, v := range d.Variables {
		b.QueryVariable(dashboardv2.NewQueryVariableBuilder(v.Name).
			Label(v.Label).
			Query(legacyQuery(v.Query)).
			Definition(v.Query).
			Refresh(dashboardv2.VariableRefreshOnTimeRangeChanged).
			Sort(dashboardv2.VariableSortAlphabeticalAsc).
			Multi(v.Multi).
			IncludeAll(v.Multi))
	}
	var links []cog.Builder[dashboardv2.DashboardLink]
	for _, target := range d.Links {
		links = append(links, dashboardv2.NewDashboardLinkBuilder().
			Title(m.Dashboards[target].Title).
			Type(dashboardv2.DashboardLinkTypeDashboards).
			Tags([]string{m.Deploy.Grafana.UIDPrefix, target}).
			IncludeVars(true).
			KeepTime(true))
	}
	b.Links(links)
	var annotations []cog.Builder[dashboardv2.AnnotationQueryKind]
	for _, a := range d.Annotations {
		annotations = append(annotations, dashboardv2.NewAnnotationQueryBuilder().
			Name(a.Name).
			Enable(true).
			IconColor(a.Color).
			Query(prometheus.NewQueryV2Builder().Datasource(v2Datasource()).Expr(a.Expr)).
			LegacyOptions(map[string]any{"titleFormat": a.Title, "step": annotationStep}))
	}
	b.Annotations(annotations)
	rows := dashboardv2.NewRowsBuilder()
	id := 0
	for _, r := range d.Rows {
		id++
		grid := dashboardv2.NewGridBuilder()
		x, y := 0, 0
		for _, p := range r.Panels {
			id++
			key := fmt.Sprintf("panel-%d", id)
			built, err := v2Panel(m, p, id)
			if err != nil {
				return dashboardv2.Dashboard{}, fmt.Errorf("panel %q: %w", p.Title, err)
			}
			b.Panel(key, built)
			// Panels flow left to right and wrap at the grid's 24 columns, as in the classic JSON.
			if x+p.Width > gridWidth {
				x, y = 0, y+panelHeight
			}
			grid.Item(dashboardv2.NewGridItemBuilder().Name(key).X(int64(x)).Y(int64(y)).Width(int64(p.Width)).Height(panelHeight))
			x += p.Width
		}
		rows.Row(dashboardv2.NewRowBuilder().Title(r.Title).GridLayout(grid))
	}
	b.RowsLayout(rows)
	return b.Build()
}

// gridWidth is the width of Grafana's dashboard grid, in columns.
const gridWidth = 24

// legacyQuery is a query variable's query as Grafana writes a classic dashboard's string query in
// the v2 schema: a Prometheus DataQuery whose spec holds the string.
type legacyQuery string

func (q legacyQuery) Build() (dashboardv2.DataQueryKind, error) {
	ds, err := v2Datasource().Build()
	k := dashboardv2.NewDataQueryKind()
	k.Group, k.Datasource, k.Spec = "prometheus", &ds, map[string]string{"__legacyStringValue": string(q)}
	return *k, err
}

// vizOptions are the settings every v2 visualization shares; each panel type has its own builder.
type vizOptions[T any] interface {
	cog.Builder[dashboardv2.VizConfigKind]
	ranged[T]
	Unit(string) T
	Thresholds(cog.Builder[dashboardv2.ThresholdsConfig]) T
	DataLinks([]any) T
}

// v2Panel builds a panel of the catalog's type: its visualization and its queries.
func v2Panel(m *model.Model, p model.Panel, id int) (cog.Builder[dashboardv2.PanelKind], error) {
	var viz cog.Builder[dashboardv2.VizConfigKind]
	var err error
	instant, format := false, prometheus.PromQueryFormat("")
	switch p.Type {
	case "timeseries":
		b := timeseries.NewVisualizationV2Builder()
		if p.Stack {
			b.Stacking(common.NewStackingConfigBuilder().Mode(common.StackingModeNormal))
		}
		viz, err = visualize(m, b, p)
	case "stat":
		instant = true
		viz, err = visualize(m, stat.NewVisualizationV2Builder(), p)
	case "bargauge":
		instant = true
		viz, err = visualize(m, bargauge.NewVisualizationV2Builder(), p)
	case "table":
		instant, format = true, prometheus.PromQueryFormatTable
		viz, err = visualize(m, table.NewVisualizationV2Builder().Footer(common.NewTableFooterOptionsBuilder().Show(false).Reducer([]string{"sum"})), p)
	case "heatmap":
		format = prometheus.PromQueryFormatHeatmap
		viz, err = visualize(m, heatmap.NewVisualizationV2Builder().Calculate(false), p)
	default:
		return nil, fmt.Errorf("unknown panel type %q (timeseries, stat, bargauge, table, heatmap)", p.Type)
	}
	if err != nil {
		return nil, err
	}
	data := dashboardv2.NewQueryGroupBuilder()
	for i, q := range p.Queries {
		query := prometheus.NewQueryV2Builder().Datasource(v2Datasource()).Expr(q.Expr).LegendFormat(q.Legend)
		if instant {
			query.Instant(true)
		}
		if format != "" {
			query.Format(format)
		}
		data.Target(dashboardv2.NewTargetBuilder().RefId(string(rune('A' + i))).Query(query))
	}
	return dashboardv2.NewPanelBuilder().Id(float64(id)).Title(p.Title).Description(p.Description).Data(data).Visualization(viz), nil
}

// visualize sets a visualization's unit, range, thresholds and drill link from the catalog.
func visualize[T vizOptions[T]](m *model.Model, b T, p model.Panel) (cog.Builder[dashboardv2.VizConfigKind], error) {
	b.Unit(p.Unit)
	setRange(b, p)
	if len(p.Thresholds) > 0 {
		steps, err := thresholds(p.Thresholds)
		if err != nil {
			return nil, err
		}
		v2 := make([]dashboardv2.Threshold, len(steps))
		for i, s := range steps {
			v2[i] = dashboardv2.Threshold{Value: s.Value, Color: s.Color}
		}
		b.Thresholds(dashboardv2.NewThresholdsConfigBuilder().Mode(dashboardv2.ThresholdsModeAbsolute).Steps(v2))
	}
	if p.Drill != "" {
		title, url := drillTarget(m, p)
		b.DataLinks([]any{dashboardv2.DataLink{Title: title, Url: url}})
	}
	return b, nil
}
