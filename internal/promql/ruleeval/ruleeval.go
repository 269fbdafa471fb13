// Package ruleeval evaluates rule files with Prometheus' own rule manager, query engine and
// TSDB over synthetic series, for benchmarks and tests (which also write its series as blocks
// for backtest). It is part of the promql adapter; rule files load as replay loads them.
package ruleeval

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/rules"
	"github.com/prometheus/prometheus/storage"
	"github.com/prometheus/prometheus/tsdb"

	"github.com/gpuobs/gpuobs/internal/promql/replay"
)

// Store is a Prometheus TSDB holding synthetic series, for evaluating rule files with
// Prometheus' own rule manager and query engine.
type Store struct {
	db      *tsdb.DB
	app     storage.Appender
	pending int
	engine  *promql.Engine
}

// OpenStore opens an empty TSDB in dir.
func OpenStore(dir string) (*Store, error) {
	opts := tsdb.DefaultOptions()
	// Series are appended one after another, each over its whole time range; the head only
	// accepts samples within half a block of its newest, so blocks span a day.
	day := (24 * time.Hour).Milliseconds()
	opts.MinBlockDuration, opts.MaxBlockDuration = day, day
	db, err := tsdb.Open(dir, slog.New(slog.NewTextHandler(io.Discard, nil)), nil, opts, nil)
	if err != nil {
		return nil, err
	}
	engine := promql.NewEngine(promql.EngineOpts{MaxSamples: 200_000_000, Timeout: 10 * time.Minute, LookbackDelta: 5 * time.Minute})
	return &Store{db: db, engine: engine}, nil
}

// AddSeries appends n samples, step milliseconds apart from start, of one series.
func (s *Store) AddSeries(metric string, lbls map[string]string, start, step int64, n int, value func(i int) float64) error {
	if s.app == nil {
		s.app = s.db.Appender(context.Background())
	}
	b := labels.NewBuilder(labels.FromMap(lbls))
	b.Set(model.MetricNameLabel, metric)
	ls := b.Labels()
	var ref storage.SeriesRef
	for i := 0; i < n; i++ {
		var err error
		if ref, err = s.app.Append(ref, ls, start+int64(i)*step, value(i)); err != nil {
			return fmt.Errorf("%s: %w", ls, err)
		}
	}
	s.pending += n
	if s.pending > 2_000_000 {
		return s.Commit()
	}
	return nil
}

// Commit makes appended samples queryable.
func (s *Store) Commit() error {
	if s.app == nil {
		return nil
	}
	err := s.app.Commit()
	s.app, s.pending = nil, 0
	return err
}

// Close closes the TSDB.
func (s *Store) Close() error { return s.db.Close() }

// SeriesCount is how many series the store holds.
func (s *Store) SeriesCount() uint64 { return s.db.Head().NumSeries() }

// Evaluation is the outcome of evaluating rule files once.
type Evaluation struct {
	// Failed lists rules whose evaluation returned an error.
	Failed []string
	// Slowest lists the rules that took longest, slowest first, with their duration.
	Slowest []string
	// SlowestGroup is the group that took longest, and its duration: how long after its
	// evaluation time its last record is written.
	SlowestGroup         string
	SlowestGroupDuration time.Duration
	// SlowestGroupShare is the largest share of its interval a group took: what Prometheus
	// reports as prometheus_rule_group_last_duration_seconds over the group's interval.
	SlowestGroupShare float64
}

// Evaluator holds rule groups loaded from files, ready to evaluate against a store.
type Evaluator struct {
	groups []*rules.Group
	rules  int
}

// LoadRuleFiles loads rule files into groups, in file order and then as written in each file.
func (s *Store) LoadRuleFiles(files ...string) (*Evaluator, error) {
	groups, err := replay.LoadGroups(s.db, s.db, time.Minute, files...)
	if err != nil {
		return nil, err
	}
	e := &Evaluator{groups: groups}
	for _, g := range groups {
		e.rules += len(g.Rules())
	}
	return e, nil
}

// Rules is how many rules the evaluator holds.
func (e *Evaluator) Rules() int { return e.rules }

// slowestCount is how many of the slowest rules an Evaluation lists.
const slowestCount = 8

// Evaluate evaluates every group once at ts: one after another, or each group in its own
// goroutine as Prometheus' rule manager runs them.
func (e *Evaluator) Evaluate(ts time.Time, concurrent bool) Evaluation {
	if concurrent {
		var wg sync.WaitGroup
		for _, g := range e.groups {
			wg.Go(func() { g.Eval(context.Background(), ts) })
		}
		wg.Wait()
	} else {
		for _, g := range e.groups {
			g.Eval(context.Background(), ts)
		}
	}
	var ev Evaluation
	var all []rules.Rule
	for _, g := range e.groups {
		// A group evaluates its rules one after another (Eval, unlike the rule manager's loop,
		// records no group time).
		var d time.Duration
		for _, r := range g.Rules() {
			d += r.GetEvaluationDuration()
		}
		if d > ev.SlowestGroupDuration {
			ev.SlowestGroup, ev.SlowestGroupDuration = g.Name(), d
		}
		if share := d.Seconds() / g.Interval().Seconds(); share > ev.SlowestGroupShare {
			ev.SlowestGroupShare = share
		}
		for _, r := range g.Rules() {
			all = append(all, r)
			if err := r.LastError(); err != nil {
				ev.Failed = append(ev.Failed, fmt.Sprintf("%s: %v", r.Name(), err))
			}
		}
	}
	sort.SliceStable(all, func(i, j int) bool { return all[i].GetEvaluationDuration() > all[j].GetEvaluationDuration() })
	for _, r := range all[:min(slowestCount, len(all))] {
		ev.Slowest = append(ev.Slowest, fmt.Sprintf("%s %s", r.Name(), r.GetEvaluationDuration().Round(time.Millisecond)))
	}
	return ev
}

// Sample is one series of an instant query's result: its labels (the metric name under
// __name__) and value.
type Sample struct {
	Labels map[string]string
	Value  float64
}

// Instant runs an instant query that yields a vector and returns its samples.
func (s *Store) Instant(q string, ts time.Time) ([]Sample, error) {
	qry, err := s.engine.NewInstantQuery(context.Background(), s.db, nil, q, ts)
	if err != nil {
		return nil, err
	}
	defer qry.Close()
	res := qry.Exec(context.Background())
	if res.Err != nil {
		return nil, res.Err
	}
	vector, err := res.Vector()
	if err != nil {
		return nil, err
	}
	out := make([]Sample, 0, len(vector))
	for _, v := range vector {
		out = append(out, Sample{Labels: v.Metric.Map(), Value: v.F})
	}
	return out, nil
}

// Query runs an instant query and returns its result as text, one sample a line.
func (s *Store) Query(q string, ts time.Time) (string, error) {
	qry, err := s.engine.NewInstantQuery(context.Background(), s.db, nil, q, ts)
	if err != nil {
		return "", err
	}
	defer qry.Close()
	res := qry.Exec(context.Background())
	if res.Err != nil {
		return "", res.Err
	}
	return strings.TrimSpace(res.Value.String()), nil
}

// Snapshot writes the store's series, the head included, as TSDB blocks into dir: what
// Prometheus' snapshot API writes.
func (s *Store) Snapshot(dir string) error {
	if err := s.Commit(); err != nil {
		return err
	}
	return s.db.Snapshot(dir, true)
}
