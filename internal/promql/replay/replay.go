// Package replay evaluates rule files over recorded data with Prometheus' own rule code and
// query engine: the blocks of a TSDB directory (a snapshot, or blocks made with promtool
// tsdb create-blocks-from) read in place, the recorded series written to a scratch TSDB
// (which compacts its head into blocks on disk as evaluated time passes, as Prometheus' own
// does), so memory stays bounded by what one window of evaluation reads. It is part of the
// promql adapter: the only place gpuobs reads a TSDB.
package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/model/value"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/rules"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb"

	templates "github.com/gpuobs/gpuobs/internal/promql"
)

// Data is the blocks of a TSDB directory, opened read-only.
type Data struct {
	Dir    string
	blocks []*tsdb.Block
	// MinTime and MaxTime bound the samples of every block.
	MinTime, MaxTime time.Time
}

// Open opens every block of a TSDB directory. A directory without blocks is refused, with
// what it should hold.
func Open(dir string) (*Data, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	logger := quiet()
	d := &Data{Dir: dir}
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		if _, err := os.Stat(filepath.Join(dir, e.Name(), "meta.json")); err != nil {
			continue
		}
		b, err := tsdb.OpenBlock(logger, filepath.Join(dir, e.Name()), nil, nil)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("%s: block %s: %w", dir, e.Name(), err), d.Close())
		}
		d.blocks = append(d.blocks, b)
	}
	if len(d.blocks) == 0 {
		return nil, fmt.Errorf("%s is not a Prometheus TSDB directory: it holds no blocks (a directory with a meta.json); give a snapshot (POST /api/v1/admin/tsdb/snapshot) or blocks made with promtool tsdb create-blocks-from", dir)
	}
	minT, maxT := d.blocks[0].MinTime(), d.blocks[0].MaxTime()
	for _, b := range d.blocks[1:] {
		minT, maxT = min(minT, b.MinTime()), max(maxT, b.MaxTime())
	}
	// A block's MaxTime is exclusive.
	d.MinTime, d.MaxTime = time.UnixMilli(minT).UTC(), time.UnixMilli(maxT-1).UTC()
	return d, nil
}

// Close closes the blocks.
func (d *Data) Close() error {
	var errs []error
	for _, b := range d.blocks {
		errs = append(errs, b.Close())
	}
	return errors.Join(errs...)
}

// querier reads every block that overlaps [mint, maxt].
func (d *Data) querier(mint, maxt int64) (storage.Querier, error) {
	var qs []storage.Querier
	for _, b := range d.blocks {
		if !b.OverlapsClosedInterval(mint, maxt) {
			continue
		}
		q, err := tsdb.NewBlockQuerier(b, mint, maxt)
		if err != nil {
			for _, o := range qs {
				err = errors.Join(err, o.Close())
			}
			return nil, err
		}
		qs = append(qs, blockQuerier{q, b.Dir(), d.Dir})
	}
	return storage.NewMergeQuerier(qs, nil, storage.ChainedSeriesMerge), nil
}

// MetricNames are the metric names with samples in [from, to], sorted.
func (d *Data) MetricNames(from, to time.Time) ([]string, error) {
	q, err := d.querier(from.UnixMilli(), to.UnixMilli())
	if err != nil {
		return nil, err
	}
	names, _, err := q.LabelValues(context.Background(), model.MetricNameLabel, nil)
	return names, errors.Join(err, q.Close())
}

// Firing is one alert instance firing after an evaluation: its rule's name and its labels
// (rule labels included).
type Firing struct {
	Alert  string
	Labels map[string]string
	// RuleLabels are the labels the rule itself sets (severity, team, ...), which every
	// instance of the alert shares.
	RuleLabels map[string]string
}

// Rules are rule files loaded for replay.
type Rules struct {
	// rules are the alerting rules and the records they read, in evaluation order.
	rules     []evaluated
	engine    *promql.Engine
	queryable storage.Queryable
	scratch   *tsdb.DB
	interval  time.Duration
	// windowed tells whether a range query may cover more than one step: not when a rule
	// reads what a rule evaluated after it (or itself) writes.
	windowed bool
	// previous holds, per rule, the series its last evaluation wrote (to mark the ones that
	// vanish stale, as Prometheus does).
	previous map[rules.Rule]map[string]labels.Labels
}

// windowSpan is how much time a rule's range query covers, so that its input is looked up in
// the index once per window instead of once per step. The scratch TSDB takes samples up to an
// hour older than its newest (half its block range), and each rule's window starts a window
// before the newest sample the rule before it wrote: windows stay well inside that.
const windowSpan = 30 * time.Minute

// MinInterval is the shortest group interval a replay evaluates: a rule file from a pull request
// with interval: 1ms would otherwise take a thousand steps per second of data.
const MinInterval = time.Second

// Load loads rule files for replay over data; what they record goes to a scratch TSDB in
// scratchDir. interval is the evaluation interval of groups that set none.
func Load(data *Data, scratchDir string, interval time.Duration, files ...string) (*Rules, error) {
	opts := tsdb.DefaultOptions()
	scratch, err := tsdb.Open(scratchDir, quiet(), nil, opts, nil)
	if err != nil {
		return nil, err
	}
	queryable := storage.QueryableFunc(func(mint, maxt int64) (storage.Querier, error) {
		recorded, err := scratch.Querier(mint, maxt)
		if err != nil {
			return nil, err
		}
		input, err := data.querier(mint, maxt)
		if err != nil {
			return nil, errors.Join(err, recorded.Close())
		}
		return storage.NewMergeQuerier([]storage.Querier{input, recorded}, nil, storage.ChainedSeriesMerge), nil
	})
	engine := newEngine(interval)
	groups, err := loadGroups(engine, queryable, scratch, interval, files...)
	if err != nil {
		return nil, errors.Join(err, scratch.Close())
	}
	if len(groups) == 0 {
		return nil, errors.Join(errors.New("no rule groups in the rule files"), scratch.Close())
	}
	if err := checkBounds(groups, interval); err != nil {
		return nil, errors.Join(err, scratch.Close())
	}
	order, windowed := evaluationPlan(groups)
	return &Rules{rules: order, engine: engine, queryable: queryable, scratch: scratch, interval: interval, windowed: windowed, previous: map[rules.Rule]map[string]labels.Labels{}}, nil
}

// MaxSubquerySteps is how many times a replay lets one subquery evaluate its inner query for
// each step of its rule: [30d:1ms] would take 2.6 billion.
const MaxSubquerySteps = 100_000

// checkBounds refuses groups evaluated more often than MinInterval and subqueries (nested ones
// multiplied) of more than MaxSubquerySteps steps, before anything runs. A subquery without a
// step takes defaultInterval, as in Prometheus.
func checkBounds(groups []*rules.Group, defaultInterval time.Duration) error {
	for _, g := range groups {
		if g.Interval() < MinInterval {
			return fmt.Errorf("group %s: interval %s: a replay evaluates a group at most every %s of data (every second of a week is 604,800 steps)", g.Name(), g.Interval(), MinInterval)
		}
		for _, r := range g.Rules() {
			if err := subquerySteps(r.Query(), defaultInterval); err != nil {
				return fmt.Errorf("group %s, rule %s: %w", g.Name(), r.Name(), err)
			}
		}
	}
	return nil
}

func subquerySteps(expr parser.Expr, defaultInterval time.Duration) error {
	var err error
	parser.Inspect(expr, func(node parser.Node, path []parser.Node) error {
		sq, ok := node.(*parser.SubqueryExpr)
		if !ok || err != nil {
			return nil
		}
		steps := int64(1)
		for _, n := range append(path, node) {
			if outer, ok := n.(*parser.SubqueryExpr); ok {
				step := outer.Step
				if step == 0 {
					step = defaultInterval
				}
				steps *= max(int64(outer.Range/step), 1)
				if steps > MaxSubquerySteps {
					break
				}
			}
		}
		if steps > MaxSubquerySteps {
			err = fmt.Errorf("subquery [%s:%s] evaluates its inner query %d times per step; a replay allows at most %d (a longer step or a shorter range)",
				model.Duration(sq.Range), stepText(sq.Step), steps, MaxSubquerySteps)
		}
		return nil
	})
	return err
}

// stepText is a subquery's step as written: empty when it has none.
func stepText(step time.Duration) string {
	if step == 0 {
		return ""
	}
	return model.Duration(step).String()
}

// LoadGroups loads rule files with Prometheus' rule manager and query engine, reading from
// queryable and recording into app; groups with no interval of their own get interval. The
// groups come in evaluation order, the same on every run: files as given (records before the
// alerts that read them), groups as written in each file.
func LoadGroups(queryable storage.Queryable, app storage.AppendableV2, interval time.Duration, files ...string) ([]*rules.Group, error) {
	return loadGroups(newEngine(interval), queryable, app, interval, files...)
}

// newEngine is the query engine rules are evaluated with: Prometheus' defaults, with limits
// wide enough for a fleet; a subquery without a step takes the default evaluation interval,
// as Prometheus gives it.
func newEngine(defaultInterval time.Duration) *promql.Engine {
	return promql.NewEngine(promql.EngineOpts{
		MaxSamples: 200_000_000, Timeout: 10 * time.Minute, LookbackDelta: 5 * time.Minute,
		NoStepSubqueryIntervalFn: func(int64) int64 { return defaultInterval.Milliseconds() },
	})
}

func loadGroups(engine *promql.Engine, queryable storage.Queryable, app storage.AppendableV2, interval time.Duration, files ...string) ([]*rules.Group, error) {
	loader := replayLoader{parsed: map[string]*rulefmt.RuleGroups{}, parser: parser.NewParser(parser.Options{})}
	// The manager returns a map: the order comes from the files.
	position := map[string]int{}
	for i, f := range files {
		parsed, errs := rulefmt.ParseFile(f, false, model.LegacyValidation, loader.parser, quiet())
		if len(errs) > 0 {
			return nil, fmt.Errorf("loading rules: %w", errors.Join(errs...))
		}
		for j := range parsed.Groups {
			position[rules.GroupKey(f, parsed.Groups[j].Name)] = i<<20 | j
			for k := range parsed.Groups[j].Rules {
				parsed.Groups[j].Rules[k].Annotations = nil
			}
		}
		loader.parsed[f] = parsed
	}
	m := rules.NewManager(&rules.ManagerOptions{
		QueryFunc:    rules.EngineQueryFunc(engine, queryable),
		Queryable:    queryable,
		AppendableV2: app,
		Context:      context.Background(),
		NotifyFunc:   func(context.Context, string, ...*rules.Alert) {},
		Logger:       quiet(),
		GroupLoader:  loader,
	})
	loaded, errs := m.LoadGroups(interval, labels.EmptyLabels(), "", nil, false, files...)
	if len(errs) > 0 {
		return nil, fmt.Errorf("loading rules: %w", errors.Join(errs...))
	}
	groups := slices.Collect(maps.Values(loaded))
	sort.Slice(groups, func(i, j int) bool {
		return position[rules.GroupKey(groups[i].File(), groups[i].Name())] < position[rules.GroupKey(groups[j].File(), groups[j].Name())]
	})
	// Prometheus writes an alert's ALERTS series once it has restored the alert's state at
	// start; there is none to restore here, so mark them restored, as promtool does.
	for _, g := range groups {
		for _, rule := range g.Rules() {
			if a, ok := rule.(*rules.AlertingRule); ok {
				a.SetRestored(true)
			}
		}
	}
	return groups, nil
}

// replayLoader hands the rule manager the files loadGroups parsed, without their annotations:
// they do not change what fires, and the manager would expand their templates (text a pull
// request may bring) for every alert at every step, with no bound.
type replayLoader struct {
	parsed map[string]*rulefmt.RuleGroups
	parser parser.Parser
}

// Load returns the parsed file.
func (l replayLoader) Load(file string, _ bool, _ model.ValidationScheme) (*rulefmt.RuleGroups, []error) {
	return l.parsed[file], nil
}

// Parse parses a rule's expression.
func (l replayLoader) Parse(query string) (parser.Expr, error) { return l.parser.ParseExpr(query) }

// Close closes the scratch TSDB.
func (r *Rules) Close() error { return r.scratch.Close() }

// Reads maps every metric the alerts read from the data (by a selector naming it, that no
// rule's output meets), directly or through the records they read, to those alerts.
func (r *Rules) Reads() map[string][]string {
	out := map[string][]string{}
	graph := graphOf(r.rules)
	for _, i := range graph.Alerts() {
		alert := r.rules[i]
		seen := map[int]bool{i: true}
		for queue := []int{i}; len(queue) > 0; queue = queue[1:] {
			for _, s := range r.rules[queue[0]].node.Reads {
				read := graph.ReadBySelector(s)
				for _, j := range read {
					if !seen[j] {
						seen[j] = true
						queue = append(queue, j)
					}
				}
				fromRules := len(read) > 0
				name := s.Matcher(model.MetricNameLabel)
				if !fromRules && name != nil && name.Type == labels.MatchEqual && !slices.Contains(out[name.Value], alert.rule.Name()) {
					out[name.Value] = append(out[name.Value], alert.rule.Name())
				}
			}
		}
	}
	return out
}

// Step is the interval replay advances by: the shortest of the groups' intervals.
func (r *Rules) Step() time.Duration {
	step := r.interval
	for _, e := range r.rules {
		step = min(step, e.group.Interval())
	}
	return step
}

// Replay evaluates the rules from from to to, as Prometheus would have, each group at its own
// interval (counted from from), and calls step for every step in order with the alerts firing
// then.
// A rule that fails stops the replay with its error.
//
// Rules are evaluated a window of steps at a time, each rule over the whole window before the
// next: its expression as one range query (as promtool's rule backfill does), then the rule's
// own Eval at each step of the window served from that query's result, so that records get
// Prometheus' labels and checks and alerts its pending, firing and keep-firing states. What
// Prometheus' rule group adds around Eval is repeated here: samples written in order, the
// group's query offset and limit, series that vanish marked stale. This gives what
// step-by-step evaluation gives as long as no rule reads what a rule after it records; when
// one does, each window is one step.
func (r *Rules) Replay(ctx context.Context, from, to time.Time, step func(ts time.Time, firing []Firing) error) error {
	every := r.Step()
	window := 1
	if r.windowed {
		window = max(1, int(windowSpan/every))
	}
	for start := from; !start.After(to); start = start.Add(time.Duration(window) * every) {
		var steps []time.Time
		for ts := start; !ts.After(to) && len(steps) < window; ts = ts.Add(every) {
			steps = append(steps, ts)
		}
		firing := make([][]Firing, len(steps))
		for _, e := range r.rules {
			if err := ctx.Err(); err != nil {
				return err
			}
			var due []bool
			for _, ts := range steps {
				due = append(due, ts.Sub(from)%e.group.Interval() == 0)
			}
			if err := r.evalWindow(ctx, e.group, e.rule, steps, due, firing); err != nil {
				if d := new(DamagedError); errors.As(err, &d) {
					return d
				}
				return fmt.Errorf("%s from %s: rule %s: %w", e.group.File(), steps[0].UTC().Format(time.RFC3339), e.rule.Name(), err)
			}
		}
		for i, ts := range steps {
			if err := step(ts, firing[i]); err != nil {
				return err
			}
		}
	}
	return nil
}

// evalWindow evaluates one rule at the steps it is due and writes what it returns to the
// scratch TSDB; an alerting rule's firing alerts are added to every step's list.
func (r *Rules) evalWindow(ctx context.Context, g *rules.Group, rule rules.Rule, steps []time.Time, due []bool, firing [][]Firing) error {
	offset := g.QueryOffset()
	var at []time.Time
	for i, ts := range steps {
		if due[i] {
			at = append(at, ts.Add(-offset))
		}
	}
	results, err := r.rangeQuery(ctx, rule.Query().String(), at, g.Interval())
	if err != nil {
		return err
	}
	query := func(_ context.Context, _ string, ts time.Time) (promql.Vector, error) {
		return results[ts.UnixMilli()], nil
	}
	alert, _ := rule.(*rules.AlertingRule)
	app := r.scratch.AppenderV2(ctx)
	for i, ts := range steps {
		if due[i] {
			vector, err := evalBounded(ctx, rule, offset, ts, query, g.Limit(), results[ts.Add(-offset).UnixMilli()])
			if err == nil {
				err = r.write(app, rule, vector, ts.Add(-offset))
			}
			if err != nil {
				return errors.Join(err, app.Rollback())
			}
		}
		if alert != nil {
			firing[i] = append(firing[i], firingOf(alert)...)
		}
	}
	return app.Commit()
}

// evalBounded evaluates a rule at ts on results already queried (vector, the query's result
// there). An alerting rule whose labels are templates expands them there for every series it
// returned; that is text a pull request may bring, and a loop may hide behind a condition on
// the data. So each label is first expanded as generate expands it, for each series, within
// generate's bounds: one past them ends the replay, naming the rule, before the rule manager
// would run it unbounded.
func evalBounded(ctx context.Context, rule rules.Rule, offset time.Duration, ts time.Time, query rules.QueryFunc, limit int, vector promql.Vector) (promql.Vector, error) {
	if alert, ok := rule.(*rules.AlertingRule); ok && templated(alert.Labels()) {
		if err := labelsPastBounds(alert, vector); err != nil {
			return nil, err
		}
	}
	return rule.Eval(ctx, offset, ts, query, nil, limit)
}

// labelsPastBounds expands the label templates of an alert for each series of its query's
// result as generate does, and returns the error of one past generate's bounds. Other errors
// are the rule manager's to report, as it does, in the label's value.
func labelsPastBounds(alert *rules.AlertingRule, vector promql.Vector) error {
	var err error
	for _, sample := range vector {
		metric := sample.Metric.Map()
		alert.Labels().Range(func(l labels.Label) {
			if err != nil || !strings.Contains(l.Value, "{{") {
				return
			}
			_, e := templates.ExpandAlertTemplate(alert.Name(), l.Value, metric, sample.F)
			if errors.Is(e, templates.ErrTemplateLoops) || errors.Is(e, templates.ErrTemplateTooLong) {
				err = fmt.Errorf("its label %s: %w", l.Name, e)
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// templated reports whether any label value holds a template action.
func templated(lset labels.Labels) bool {
	found := false
	lset.Range(func(l labels.Label) { found = found || strings.Contains(l.Value, "{{") })
	return found
}

// rangeQuery evaluates an expression at evenly spaced times in one range query and returns
// the instant vector at each (by Unix milliseconds).
func (r *Rules) rangeQuery(ctx context.Context, expr string, at []time.Time, every time.Duration) (map[int64]promql.Vector, error) {
	out := map[int64]promql.Vector{}
	if len(at) == 0 {
		return out, nil
	}
	q, err := r.engine.NewRangeQuery(ctx, r.queryable, nil, expr, at[0], at[len(at)-1], every)
	if err != nil {
		return nil, err
	}
	defer q.Close()
	res := q.Exec(ctx)
	if res.Err != nil {
		return nil, res.Err
	}
	matrix, err := res.Matrix()
	if err != nil {
		return nil, err
	}
	for _, series := range matrix {
		for _, p := range series.Floats {
			out[p.T] = append(out[p.T], promql.Sample{Metric: series.Metric, T: p.T, F: p.F})
		}
		for _, p := range series.Histograms {
			// The query's points go back to the engine's pools when it closes.
			out[p.T] = append(out[p.T], promql.Sample{Metric: series.Metric, T: p.T, H: p.H.Copy()})
		}
	}
	return out, nil
}

// write appends what one evaluation of a rule returned at ts and marks stale the series its
// previous evaluation wrote and this one did not, as Prometheus' rule group does.
func (r *Rules) write(app storage.AppenderV2, rule rules.Rule, vector promql.Vector, ts time.Time) error {
	written := make(map[string]labels.Labels, len(vector))
	for _, s := range vector {
		if _, err := app.Append(0, s.Metric, 0, s.T, s.F, nil, s.H, storage.AOptions{RejectOutOfOrder: true}); err != nil {
			return err
		}
		written[string(s.Metric.Bytes(nil))] = s.Metric
	}
	for key, lset := range r.previous[rule] {
		if _, ok := written[key]; !ok {
			if _, err := app.Append(0, lset, 0, ts.UnixMilli(), math.Float64frombits(value.StaleNaN), nil, nil, storage.AOptions{RejectOutOfOrder: true}); err != nil {
				return err
			}
		}
	}
	r.previous[rule] = written
	return nil
}

// firingOf lists an alerting rule's firing alerts.
func firingOf(a *rules.AlertingRule) []Firing {
	var out []Firing
	for _, active := range a.ActiveAlerts() {
		if active.State == rules.StateFiring {
			out = append(out, Firing{Alert: a.Name(), Labels: active.Labels.Map(), RuleLabels: a.Labels().Map()})
		}
	}
	return out
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
