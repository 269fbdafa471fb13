package promql

import (
	"slices"
	"strings"
	"testing"

	"github.com/prometheus/prometheus/promql/parser"
)

// TestEveryExperimentalFunctionIsVersioned: each function the pinned parser marks experimental
// is in the table of versioned constructs, so a module upgrade that adds one cannot pass
// unchecked on a target that lacks it.
func TestEveryExperimentalFunctionIsVersioned(t *testing.T) {
	for name, f := range parser.Functions {
		if _, ok := versioned["function "+name]; f.Experimental && !ok {
			t.Errorf("experimental function %s is not in versioned: add the release that added it", name)
		}
	}
}

// TestLacksByTarget: what a target release lacks, in both directions: a rule that uses a
// construct newer than the target is refused, naming the release that added it; the same rule
// on a target that has it passes; a construct behind a flag on the target needs the flag, and
// not on a release that made it stable.
func TestLacksByTarget(t *testing.T) {
	for _, c := range []struct {
		expr, target string
		flags        []string
		want         []string // each lack as construct@since or construct+flag
	}{
		{"first_over_time(up[1h])", "3.5", nil, []string{"function first_over_time@3.7"}},
		{"first_over_time(up[1h])", "3.13", nil, []string{"function first_over_time+promql-experimental-functions"}},
		{"first_over_time(up[1h])", "3.13", []string{ExperimentalFunctions}, nil},
		{"first_over_time(up[1h])", "3.16", nil, nil},
		{"rate(up[5m] anchored)", "3.5", nil, []string{"the anchored modifier@3.7"}},
		{"rate(up[5m] anchored)", "3.13", nil, []string{"the anchored modifier+promql-extended-range-selectors"}},
		{"rate(up[5m] anchored)", "3.16", nil, nil},
		{"rate(up[5m * 2])", "3.13", nil, []string{"duration arithmetic+promql-duration-expr"}},
		{"rate(up[5m * 2])", "3.14", nil, nil},
		{"rate(up[5m * 2])", "3.3", nil, []string{"duration arithmetic@3.4"}},
		{"rate(up[step() * 2])", "3.5", []string{"promql-duration-expr"}, []string{"step() in a duration@3.6"}},
		{"histogram_count(x) </ 3", "3.5", nil, []string{"the histogram trim operators@3.11"}},
		{"histogram_count(x) </ 3", "3.13", nil, nil},
		{"limitk(2, up)", "3.16", nil, []string{"aggregation limitk+promql-experimental-functions"}},
		{"up + fill(0) up", "3.5", []string{FillModifiers}, []string{"the fill modifiers@3.10"}},
		{"up + fill(0) up", "3.13", []string{FillModifiers}, nil},
		{"max_over_time(up[1h] offset 5m)", "3.5", nil, nil},
		{"sum by (cluster) (rate(up[5m]))", "3.0", nil, nil},
	} {
		target, err := ParseVersion(c.target)
		if err != nil {
			t.Fatal(err)
		}
		n, err := Parse(c.expr)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		var got []string
		for _, l := range Lacks(n, target, c.flags) {
			if l.Flag != "" {
				got = append(got, l.Construct+"+"+l.Flag)
			} else {
				got = append(got, l.Construct+"@"+l.Since.String())
			}
			if msg := l.Message(target); !strings.Contains(msg, l.Construct) || !strings.Contains(msg, target.String()) {
				t.Errorf("%s on %s: the message does not name the construct and the target: %s", c.expr, c.target, msg)
			}
		}
		if !slices.Equal(got, c.want) {
			t.Errorf("%s on %s with %v: lacks %v, want %v", c.expr, c.target, c.flags, got, c.want)
		}
	}
}

// TestTemplateLacks: an alert template calling a function a later release added is refused on
// an older target, and passes on one that has it.
func TestTemplateLacks(t *testing.T) {
	text := `since {{ now | humanizeTimestamp }} for {{ "1h" | toDuration }}, {{ $labels.pod | urlQueryEscape }}`
	for target, want := range map[string][]string{"3.5": {"now", "toDuration", "urlQueryEscape"}, "3.6": {"urlQueryEscape"}, "3.8": nil} {
		v, err := ParseVersion(target)
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range TemplateLacks(text, v) {
			got = append(got, strings.TrimPrefix(l.Construct, "template function "))
		}
		if !slices.Equal(got, want) {
			t.Errorf("on %s: lacks %v, want %v", target, got, want)
		}
	}
}

// TestParseVersion: the release lines gpuobs knows, a patch ignored; anything else refused.
func TestParseVersion(t *testing.T) {
	for in, want := range map[string]string{"3.5": "3.5", "3.13.2": "3.13", "v3.16": "3.16", "2.53": "", "3.17": "", "3": "", "three.5": ""} {
		v, err := ParseVersion(in)
		if got := v.String(); want != "" && (err != nil || got != want) || want == "" && err == nil {
			t.Errorf("ParseVersion(%q) = %s, %v; want %q", in, got, err, want)
		}
	}
}
