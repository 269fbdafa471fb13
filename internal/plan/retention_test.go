package plan

import (
	"regexp"
	"slices"
	"testing"

	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/testutil/testcatalog"
)

// TestRetentionTiers: every record of a retained level has one copy per tier, in a group of
// the tier's interval, each tier reading the one before it; the remote-write regex keeps
// exactly the tiers' records.
func TestRetentionTiers(t *testing.T) {
	m := testcatalog.Model(t, "")
	p, err := Build(m)
	if err != nil {
		t.Fatal(err)
	}
	keep := regexp.MustCompile("^(?:" + RetentionKeepRegex(m) + ")$")
	copies := map[string][]Recorded{}
	for _, r := range p.Recorded {
		if keep.MatchString(r.Name) != (r.TierOf != "") {
			t.Errorf("%s: the remote-write regex keeps it: %v; a tier: %v", r.Name, keep.MatchString(r.Name), r.TierOf != "")
		}
		if r.TierOf != "" {
			copies[r.TierOf] = append(copies[r.TierOf], r)
		}
	}
	intervals := m.Recording.Retention.Intervals
	sources := 0
	for _, r := range p.Recorded {
		if r.TierOf != "" || !slices.Contains(m.Recording.Retention.Levels, r.Level) {
			continue
		}
		tiers := copies[r.Name]
		if len(tiers) != len(intervals) {
			if len(copies[r.Name]) == 0 {
				t.Errorf("%s (level %s) has no retention copies", r.Name, r.Level)
			}
			continue
		}
		sources++
		for i, tier := range tiers {
			from := r.Name
			if i > 0 {
				from = tiers[i-1].Name
			}
			reads, err := promql.MetricNames(tier.Expr)
			if err != nil {
				t.Fatal(err)
			}
			if tier.Interval != intervals[i] || tier.Family != RetentionFamily(intervals[i]) || !slices.Equal(reads, []string{from}) {
				t.Errorf("tier %d of %s: %s every %s in %s reads %v, want every %s reading %s", i, r.Name, tier.Name, tier.Interval, tier.Family, reads, intervals[i], from)
			}
		}
	}
	if sources == 0 {
		t.Fatal("no record is retained")
	}
	for _, g := range p.RecordingGroups {
		for _, interval := range intervals {
			if g.Name == GroupName(RetentionFamily(interval), "recording") && g.Interval != interval {
				t.Errorf("group %s evaluates every %s, want %s", g.Name, g.Interval, interval)
			}
		}
	}
}
