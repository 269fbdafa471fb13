package plan

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/gpuobs/gpuobs/internal/conventions"
	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/promql"
)

// lookbackDelta is Prometheus' default: an instant query sees a series' sample at most this old.
const lookbackDelta = 5 * time.Minute

// RetentionFamily names the rule family of a retention tier: its group evaluates at the tier's
// interval.
func RetentionFamily(interval string) string { return "retention-" + interval }

// retentionRules copy the records of the long-lived levels (recording.retention.levels) at
// each coarser resolution of recording.retention.intervals, in their own slower groups: the
// copies a long-term store keeps instead of the raw series. A tier averages the tier before it
// over its interval (the first tier the record itself); records of a maximum keep the maximum.
func retentionRules(m *model.Model, recorded []Recorded) []Recorded {
	var sources []Recorded
	seen := map[string]bool{}
	for _, r := range recorded {
		if slices.Contains(m.Recording.Retention.Levels, r.Level) && !seen[r.Name] {
			seen[r.Name] = true
			sources = append(sources, r)
		}
	}
	var out []Recorded
	previous := map[string]string{} // source name -> its copy in the tier before
	for _, interval := range m.Recording.Retention.Intervals {
		for _, r := range sources {
			agg := "avg"
			if conventions.Operation(r.Name) == "max" {
				agg = "max"
			}
			from := cmp.Or(previous[r.Name], r.Name)
			name := r.Name + "_" + agg + interval
			tier := Recorded{
				Name: name, Expr: fmt.Sprintf("%s_over_time(%s[%s])", agg, from, interval),
				Family: RetentionFamily(interval), Level: r.Level, Op: agg, Interval: interval, TierOf: r.Name,
				Comments: []string{
					fmt.Sprintf("Reads %s of a faster group: at most one of its evaluation intervals behind, against %s.", from, interval),
					"pint disable rule/dependency",
				},
			}
			if d, err := promql.ParseDuration(interval); err == nil && time.Duration(d) > lookbackDelta {
				tier.Comments = append(tier.Comments,
					fmt.Sprintf("One sample every %s is the tier: query it with last_over_time(...[%s]) or a step of %s; Prometheus' %s lookback shows gaps.", interval, interval, interval, promql.FormatDuration(lookbackDelta)),
					"pint disable group/interval")
			}
			out = append(out, tier)
			previous[r.Name] = name
		}
	}
	return out
}

// RetentionKeepRegex matches the names of the retention tiers' records and no other recorded
// name: the regex of a remote-write relabeling that keeps only them.
func RetentionKeepRegex(m *model.Model) string {
	return ".+:.+_(avg|max)(" + strings.Join(m.Recording.Retention.Intervals, "|") + ")"
}
