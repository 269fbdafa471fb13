package gpuobs_test

import (
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/lint"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/plan/plantest"
)

// TestReadmeCountsAreTrue: the rule and alert counts the README gives are the embedded
// catalog's.
func TestReadmeCountsAreTrue(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	p := plantest.Plan(t, "")
	derived := 0
	for _, r := range p.Recorded {
		if !r.FromCatalog {
			derived++
		}
	}
	want := fmt.Sprintf("The embedded catalog records %d recording rules (%d derived, %d declared in records) and %d alerts", len(p.Recorded), derived, len(p.Recorded)-derived, len(p.Alerts))
	if !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), want) {
		t.Errorf("README.md does not say %q", want)
	}
}

// TestReadmeRetentionSeriesAreTrue: the series count of each retention tier that the README
// gives is lint's projection at the catalog's fleet size.
func TestReadmeRetentionSeriesAreTrue(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	p := plantest.Plan(t, "")
	in := lint.NewInputs(p, nil)
	var counts []string
	for _, interval := range p.Model.Recording.Retention.Intervals {
		series := 0
		for _, r := range p.Recorded {
			if r.TierOf == "" || r.Interval != interval {
				continue
			}
			n, err := in.ProjectedSeries(r.Expr)
			if err != nil {
				t.Fatal(err)
			}
			series += n
		}
		counts = append(counts, fmt.Sprintf("the %s tier %s series", interval, thousands(series)))
	}
	want := "each tier keeps about as many series as the records it copies: " + strings.Join(counts, ", ")
	if !strings.Contains(strings.Join(strings.Fields(string(readme)), " "), want) {
		t.Errorf("README.md does not say %q", want)
	}
}

// thousands writes n with thousands separators: 12,345.
func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// TestReadmeRetentionRegexIsTrue: the remote-write relabeling the README shows keeps the
// retention tiers of the embedded catalog.
func TestReadmeRetentionRegexIsTrue(t *testing.T) {
	readme, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	want := "regex: '" + plan.RetentionKeepRegex(plantest.Plan(t, "").Model) + "'"
	if !strings.Contains(string(readme), want) {
		t.Errorf("README.md does not show %q", want)
	}
}
