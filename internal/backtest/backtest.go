// Package backtest replays two rule sets (a base and a pull request's head) over recorded data
// and reports, per alert, how often each would have fired: firing episodes, time firing, pages
// and tickets per day, the targets it hit most.
package backtest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql/replay"
)

// Side is one rule set: a name for the report and its rule files, records before alerts.
type Side struct {
	Name  string
	Files []string
}

// Options bound a backtest.
type Options struct {
	// From and To are the replayed range; zero means the data's first or last sample.
	From, To time.Time
	// Interval is the evaluation interval of groups that set none; zero means a minute,
	// Prometheus' default.
	Interval time.Duration
	// AllowMissing replays even when the rules read metrics the data lacks (listed on
	// Progress) instead of refusing.
	AllowMissing bool
	// Progress receives progress lines and warnings; nil discards them.
	Progress io.Writer
}

// Result is a backtest's outcome.
type Result struct {
	Data     string     `json:"data"`
	From     time.Time  `json:"from"`
	To       time.Time  `json:"to"`
	Step     string     `json:"step"`
	Sides    []string   `json:"sides"`
	Totals   []Totals   `json:"totals"`
	Alerts   []AlertRow `json:"alerts"`
	Missing  []Missing  `json:"missing,omitempty"`
	days     float64
	stepTime time.Duration
}

// Totals are one side's notifications per day: firing episodes of pages (severity critical)
// and of tickets (warning).
type Totals struct {
	PagesPerDay   float64 `json:"pagesPerDay"`
	TicketsPerDay float64 `json:"ticketsPerDay"`
}

// AlertRow is one alert that fired on either side, with its statistics per side.
type AlertRow struct {
	Alert string  `json:"alert"`
	Sides []Stats `json:"sides"`
}

// Stats are how an alert fired on one side.
type Stats struct {
	// Severity is the alert's severity on the side ("" where it did not fire).
	Severity string `json:"severity,omitempty"`
	// Episodes counts firing episodes: an alert instance (its label set) starting to fire.
	Episodes int `json:"episodes"`
	// Firing is the time firing, summed over instances.
	Firing Seconds `json:"firingSeconds"`
	// Top are the instances that fired longest, longest first (at most topTargets).
	Top []Target `json:"top,omitempty"`
}

// Target is one alert instance, by the labels its expression gave it.
type Target struct {
	Labels   string  `json:"labels"`
	Episodes int     `json:"episodes"`
	Firing   Seconds `json:"firingSeconds"`
}

// Seconds is a duration that JSON writes as a number of seconds.
type Seconds time.Duration

// MarshalJSON writes the seconds.
func (s Seconds) MarshalJSON() ([]byte, error) { return json.Marshal(time.Duration(s).Seconds()) }

// Missing is a metric the rules read that the data has no samples of in the range, with the
// alerts that read it (directly or through records).
type Missing struct {
	Metric string   `json:"metric"`
	Alerts []string `json:"alerts"`
}

// MaxSteps is the most evaluation steps a backtest replays (694 days at one minute): more is
// a range no review waits for, or a stray sample years away from the rest of the data.
const MaxSteps = 1_000_000

// checkSteps refuses a range of more than MaxSteps steps, with the span and a way to narrow it.
func checkSteps(from, to time.Time, step time.Duration) error {
	// In seconds: a time.Duration stops at 292 years.
	if steps := float64(to.Unix()-from.Unix()) / step.Seconds(); steps > MaxSteps {
		return fmt.Errorf("the range from %s to %s is %.0f steps of %s; backtest replays at most %d steps (%.0f days at %s): narrow it with --from and --to (or, for groups that set no interval, step coarser with --interval)",
			stamp(from), stamp(to), steps, step, MaxSteps, float64(MaxSteps)*step.Hours()/24, step)
	}
	return nil
}

// topTargets is how many instances a Stats lists.
const topTargets = 3

// Run replays each side's rules over the TSDB blocks in dataDir, the sides side by side.
func Run(ctx context.Context, dataDir string, sides []Side, opts Options) (res *Result, err error) {
	progress := opts.Progress
	if progress == nil {
		progress = io.Discard
	}
	if opts.Interval == 0 {
		opts.Interval = time.Minute
	}
	data, err := replay.Open(dataDir)
	if err != nil {
		return nil, err
	}
	defer func() { err = errors.Join(err, data.Close()) }()
	from, to := opts.From, opts.To
	if from.IsZero() {
		from = data.MinTime
	}
	if to.IsZero() {
		to = data.MaxTime
	}
	if !from.Before(to) {
		return nil, fmt.Errorf("the range %s to %s is empty", stamp(from), stamp(to))
	}
	if to.Before(data.MinTime) || from.After(data.MaxTime) {
		return nil, fmt.Errorf("%s has no data from %s to %s: its samples run from %s to %s", dataDir, stamp(from), stamp(to), stamp(data.MinTime), stamp(data.MaxTime))
	}
	// A range beyond the data is clamped to it, and said: replaying a century around a day of
	// data would step through the empty years.
	if from.Before(data.MinTime) {
		fmt.Fprintf(progress, "backtest: the data starts at %s: replaying from there, not from %s\n", stamp(data.MinTime), stamp(from))
		from = data.MinTime
	}
	if to.After(data.MaxTime) {
		fmt.Fprintf(progress, "backtest: the data ends at %s: replaying to there, not to %s\n", stamp(data.MaxTime), stamp(to))
		to = data.MaxTime
	}
	loaded := make([]*replay.Rules, len(sides))
	var scratchDirs []string
	defer func() {
		for _, r := range loaded {
			if r != nil {
				err = errors.Join(err, r.Close())
			}
		}
		for _, d := range scratchDirs {
			err = errors.Join(err, os.RemoveAll(d))
		}
	}()
	for i, s := range sides {
		scratch, err := os.MkdirTemp("", "gpuobs-backtest-")
		if err != nil {
			return nil, err
		}
		scratchDirs = append(scratchDirs, scratch)
		if loaded[i], err = replay.Load(data, scratch, opts.Interval, s.Files...); err != nil {
			return nil, fmt.Errorf("%s: %w", s.Name, err)
		}
	}
	if err := checkSteps(from, to, loaded[0].Step()); err != nil {
		return nil, err
	}
	missing, err := missingMetrics(data, loaded, from, to)
	if err != nil {
		return nil, err
	}
	if len(missing) > 0 && !opts.AllowMissing {
		return nil, missingError(dataDir, missing)
	}
	for _, m := range missing {
		fmt.Fprintf(progress, "backtest: warning: no samples of %s (read by %s)\n", m.Metric, strings.Join(m.Alerts, ", "))
	}
	res = &Result{Data: dataDir, From: from, To: to, Missing: missing, days: to.Sub(from).Hours() / 24}
	res.stepTime = loaded[0].Step()
	res.Step = res.stepTime.String()
	counters := make([]*counter, len(sides))
	errs := make([]error, len(sides))
	var wg sync.WaitGroup
	for i, s := range sides {
		res.Sides = append(res.Sides, s.Name)
		counters[i] = newCounter(loaded[i].Step())
		report := progressReporter(progress, s.Name, from, to)
		wg.Go(func() {
			errs[i] = loaded[i].Replay(ctx, from, to, func(ts time.Time, firing []replay.Firing) error {
				counters[i].add(firing)
				report(ts)
				return nil
			})
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	res.tabulate(counters)
	return res, nil
}

func stamp(t time.Time) string { return t.UTC().Format(time.RFC3339) }

// missingMetrics lists the metrics any side's rules read that the data lacks in the range.
func missingMetrics(data *replay.Data, sides []*replay.Rules, from, to time.Time) ([]Missing, error) {
	present, err := data.MetricNames(from, to)
	if err != nil {
		return nil, err
	}
	readers := map[string][]string{}
	for _, r := range sides {
		for metric, alerts := range r.Reads() {
			readers[metric] = append(readers[metric], alerts...)
		}
	}
	var out []Missing
	for _, metric := range slices.Sorted(maps.Keys(readers)) {
		if !slices.Contains(present, metric) {
			alerts := slices.Sorted(slices.Values(readers[metric]))
			out = append(out, Missing{Metric: metric, Alerts: slices.Compact(alerts)})
		}
	}
	return out, nil
}

func missingError(dataDir string, missing []Missing) error {
	var b strings.Builder
	fmt.Fprintf(&b, "the rules read %d metrics %s has no samples of in the range (their alerts could not fire; --allow-missing replays anyway):", len(missing), dataDir)
	for _, m := range missing {
		fmt.Fprintf(&b, "\n  %s, read by %s", m.Metric, strings.Join(m.Alerts, ", "))
	}
	return errors.New(b.String())
}

// progressReporter prints a side's progress every tenth of the range.
func progressReporter(w io.Writer, side string, from, to time.Time) func(time.Time) {
	next := 1
	return func(ts time.Time) {
		done := float64(ts.Sub(from)) / float64(to.Sub(from))
		if done*10 >= float64(next) {
			fmt.Fprintf(w, "backtest: %s %3.0f%% (%s)\n", side, done*100, stamp(ts))
			next = int(done*10) + 1
		}
	}
}

// counter counts episodes and firing time per alert instance over a replay.
type counter struct {
	step      time.Duration
	instances map[string]*instance
	firing    map[string]bool // instances firing at the previous step
}

type instance struct {
	alert, severity, target string
	episodes                int
	firing                  time.Duration
}

func newCounter(step time.Duration) *counter {
	return &counter{step: step, instances: map[string]*instance{}, firing: map[string]bool{}}
}

// add counts one step's firing alerts: each firing instance fires for the step, and one that
// did not fire at the previous step starts an episode.
func (c *counter) add(firing []replay.Firing) {
	now := map[string]bool{}
	for _, f := range firing {
		target := targetName(f.Labels, f.RuleLabels)
		key := f.Alert + target
		in := c.instances[key]
		if in == nil {
			in = &instance{alert: f.Alert, severity: f.Labels["severity"], target: target}
			c.instances[key] = in
		}
		if !c.firing[key] {
			in.episodes++
		}
		in.firing += c.step
		now[key] = true
	}
	c.firing = now
}

// targetName writes an instance's labels, sorted, without the alert name and the labels its
// rule sets (severity, the team label, family: whatever the catalog names them).
func targetName(lbls, rule map[string]string) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(lbls)) {
		if _, fromRule := rule[k]; !fromRule && k != "alertname" {
			parts = append(parts, fmt.Sprintf("%s=%q", k, lbls[k]))
		}
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// tabulate sums the counters per alert and side.
func (r *Result) tabulate(counters []*counter) {
	rows := map[string]*AlertRow{}
	r.Totals = make([]Totals, len(counters))
	for i, c := range counters {
		for _, in := range c.instances {
			row := rows[in.alert]
			if row == nil {
				row = &AlertRow{Alert: in.alert, Sides: make([]Stats, len(counters))}
				rows[in.alert] = row
			}
			s := &row.Sides[i]
			s.Severity = in.severity
			s.Episodes += in.episodes
			s.Firing += Seconds(in.firing)
			s.Top = append(s.Top, Target{Labels: in.target, Episodes: in.episodes, Firing: Seconds(in.firing)})
			switch model.Severity(in.severity) {
			case model.SeverityCritical:
				r.Totals[i].PagesPerDay += float64(in.episodes) / r.days
			case model.SeverityWarning:
				r.Totals[i].TicketsPerDay += float64(in.episodes) / r.days
			}
		}
	}
	for _, row := range rows {
		for i := range row.Sides {
			top := row.Sides[i].Top
			sort.Slice(top, func(a, b int) bool {
				if top[a].Firing != top[b].Firing {
					return top[a].Firing > top[b].Firing
				}
				return top[a].Labels < top[b].Labels
			})
			row.Sides[i].Top = top[:min(topTargets, len(top))]
		}
		r.Alerts = append(r.Alerts, *row)
	}
	// The biggest change first, then by name.
	sort.Slice(r.Alerts, func(a, b int) bool {
		da, db := r.Alerts[a].delta(), r.Alerts[b].delta()
		if da != db {
			return da > db
		}
		return r.Alerts[a].Alert < r.Alerts[b].Alert
	})
}

// delta is how much an alert's episodes changed from the first side to the last.
func (a AlertRow) delta() int {
	d := a.Sides[len(a.Sides)-1].Episodes - a.Sides[0].Episodes
	if d < 0 {
		return -d
	}
	return d
}
