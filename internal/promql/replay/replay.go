// Package replay evaluates rule files over recorded data with Prometheus' own rule manager
// and query engine: the blocks of a TSDB directory (a snapshot, or blocks made with promtool
// tsdb create-blocks-from) read in place, the recorded series written to a scratch TSDB
// (which compacts its head into blocks on disk as evaluated time passes, as Prometheus' own
// does), so memory stays bounded by what one evaluation reads. It is part of the
// promql adapter: the only place gpuobs reads a TSDB.
package replay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	gpuobspromql "github.com/gpuobs/gpuobs/internal/promql"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/model/rulefmt"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/promql/parser"
	"github.com/prometheus/prometheus/rules"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb"
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
		qs = append(qs, q)
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
}

// Rules are rule files loaded for replay, with the metric names their expressions read.
type Rules struct {
	groups   []*rules.Group
	scratch  *tsdb.DB
	interval time.Duration
}

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
	groups, err := LoadGroups(queryable, scratch, interval, files...)
	if err != nil {
		return nil, errors.Join(err, scratch.Close())
	}
	if len(groups) == 0 {
		return nil, errors.Join(errors.New("no rule groups in the rule files"), scratch.Close())
	}
	return &Rules{groups: groups, scratch: scratch, interval: interval}, nil
}

// LoadGroups loads rule files with Prometheus' rule manager and query engine, reading from
// queryable and recording into app; groups with no interval of their own get interval. The
// groups come in evaluation order, the same on every run: files as given (records before the
// alerts that read them), groups as written in each file.
func LoadGroups(queryable storage.Queryable, app storage.AppendableV2, interval time.Duration, files ...string) ([]*rules.Group, error) {
	engine := promql.NewEngine(promql.EngineOpts{MaxSamples: 200_000_000, Timeout: 10 * time.Minute, LookbackDelta: 5 * time.Minute})
	m := rules.NewManager(&rules.ManagerOptions{
		QueryFunc:    rules.EngineQueryFunc(engine, queryable),
		Queryable:    queryable,
		AppendableV2: app,
		Context:      context.Background(),
		NotifyFunc:   func(context.Context, string, ...*rules.Alert) {},
		Logger:       quiet(),
	})
	loaded, errs := m.LoadGroups(interval, labels.EmptyLabels(), "", nil, false, files...)
	if len(errs) > 0 {
		return nil, fmt.Errorf("loading rules: %w", errors.Join(errs...))
	}
	// The manager returns a map: the order comes from the files.
	position := map[string]int{}
	for i, f := range files {
		parsed, errs := rulefmt.ParseFile(f, false, model.LegacyValidation, parser.NewParser(parser.Options{}), quiet())
		if len(errs) > 0 {
			return nil, fmt.Errorf("loading rules: %w", errors.Join(errs...))
		}
		for j, g := range parsed.Groups {
			position[rules.GroupKey(f, g.Name)] = i<<20 | j
		}
	}
	groups := slices.Collect(maps.Values(loaded))
	sort.Slice(groups, func(i, j int) bool {
		return position[rules.GroupKey(groups[i].File(), groups[i].Name())] < position[rules.GroupKey(groups[j].File(), groups[j].Name())]
	})
	return groups, nil
}

// Close closes the scratch TSDB.
func (r *Rules) Close() error { return r.scratch.Close() }

// Reads maps every metric name the rules read but do not record to the alerts that read it,
// directly or through records.
func (r *Rules) Reads() (map[string][]string, error) {
	recorded := map[string][]string{} // record → metrics it reads
	var alerts []rules.Rule
	for _, g := range r.groups {
		for _, rule := range g.Rules() {
			names, err := gpuobspromql.MetricNames(rule.Query().String())
			if err != nil {
				return nil, err
			}
			if _, ok := rule.(*rules.AlertingRule); ok {
				alerts = append(alerts, rule)
			} else {
				recorded[rule.Name()] = append(recorded[rule.Name()], names...)
			}
		}
	}
	out := map[string][]string{}
	for _, a := range alerts {
		names, _ := gpuobspromql.MetricNames(a.Query().String())
		seen := map[string]bool{}
		for len(names) > 0 {
			n := names[0]
			names = names[1:]
			if seen[n] {
				continue
			}
			seen[n] = true
			if reads, ok := recorded[n]; ok {
				names = append(names, reads...)
				continue
			}
			if !slices.Contains(out[n], a.Name()) {
				out[n] = append(out[n], a.Name())
			}
		}
	}
	return out, nil
}

// Step is the interval replay advances by: the shortest of the groups' intervals.
func (r *Rules) Step() time.Duration {
	step := r.interval
	for _, g := range r.groups {
		step = min(step, g.Interval())
	}
	return step
}

// Replay evaluates the groups from from to to, as Prometheus would have, each at its own
// interval (counted from from), and calls step after each round with the alerts firing then.
// A rule that fails stops the replay with its error.
func (r *Rules) Replay(ctx context.Context, from, to time.Time, step func(ts time.Time, firing []Firing) error) error {
	for ts := from; !ts.After(to); ts = ts.Add(r.Step()) {
		if err := ctx.Err(); err != nil {
			return err
		}
		var firing []Firing
		for _, g := range r.groups {
			if ts.Sub(from)%g.Interval() == 0 {
				g.Eval(ctx, ts)
			}
			for _, rule := range g.Rules() {
				if err := rule.LastError(); err != nil {
					return fmt.Errorf("%s at %s: rule %s: %w", g.File(), ts.UTC().Format(time.RFC3339), rule.Name(), err)
				}
				if a, ok := rule.(*rules.AlertingRule); ok {
					firing = append(firing, firingOf(a)...)
				}
			}
		}
		if err := step(ts, firing); err != nil {
			return err
		}
	}
	return nil
}

// firingOf lists an alerting rule's firing alerts.
func firingOf(a *rules.AlertingRule) []Firing {
	var out []Firing
	for _, active := range a.ActiveAlerts() {
		if active.State == rules.StateFiring {
			out = append(out, Firing{Alert: a.Name(), Labels: active.Labels.Map()})
		}
	}
	return out
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }
