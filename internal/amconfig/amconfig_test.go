package amconfig

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"
)

// inhibiting is an Alertmanager configuration whose inhibit rules take each path of the
// inhibitor: an equal list, a regular expression, a rule whose sides overlap (a critical
// alert silences warnings of its family, and the older source_match form).
const inhibiting = `
route: {receiver: default}
receivers: [{name: default}]
inhibit_rules:
  - source_matchers: [alertname="NodeDown"]
    target_matchers: [severity=~"warning|info"]
    equal: [cluster, Hostname]
  - source_matchers: [severity="critical"]
    target_matchers: [severity=~"critical|warning"]
    equal: [family]
  - source_match: {alertname: ClusterBlind}
    target_match_re: {family: "hard.*"}
    equal: [cluster]
`

// randomAlerts are alerts of random labels over small value sets, some labels absent.
func randomAlerts(n int, rng *rand.Rand) []map[string]string {
	pick := func(values ...string) string { return values[rng.IntN(len(values))] }
	out := make([]map[string]string, n)
	for i := range out {
		a := map[string]string{"alertname": pick("NodeDown", "ClusterBlind", "GPUHot", "GPUXid", fmt.Sprintf("A%d", i))}
		for label, values := range map[string][]string{
			"severity": {"critical", "warning", "info", ""},
			"cluster":  {"a", "b", ""},
			"Hostname": {"n1", "n2", ""},
			"family":   {"hardware", "workload", ""},
		} {
			if v := pick(values...); v != "" {
				a[label] = v
			}
		}
		out[i] = a
	}
	return out
}

// TestSilencersAsTheInhibitorSays: the indexed check finds, on random alerts, exactly the
// silencers that asking Alertmanager's inhibitor about every pair finds.
func TestSilencersAsTheInhibitorSays(t *testing.T) {
	c, err := Load([]byte(inhibiting))
	if err != nil {
		t.Fatal(err)
	}
	alerts := randomAlerts(60, rand.New(rand.NewPCG(1, 2)))
	got, err := c.Silencers(alerts)
	if err != nil {
		t.Fatal(err)
	}
	silenced := 0
	for target := range alerts {
		var want []int
		for source := range alerts {
			if source == target {
				continue
			}
			muted, err := c.Inhibited([]map[string]string{alerts[source]}, alerts[target])
			if err != nil {
				t.Fatal(err)
			}
			if muted {
				want = append(want, source)
			}
		}
		if !slices.Equal(got[target], want) {
			t.Errorf("alert %v: silenced by %v, the inhibitor says %v", alerts[target], got[target], want)
		}
		silenced += len(want)
	}
	if silenced < 100 {
		t.Fatalf("only %d silencing pairs: the fixture does not exercise the rules", silenced)
	}
}

// TestSilencersScale: 8,000 alerts (a diff that adds a team's alerts) are checked in
// seconds: the work follows the pairs an inhibit rule relates, not every pair.
func TestSilencersScale(t *testing.T) {
	c, err := Load([]byte(inhibiting))
	if err != nil {
		t.Fatal(err)
	}
	alerts := make([]map[string]string, 8000)
	for i := range alerts {
		alerts[i] = map[string]string{"alertname": fmt.Sprintf("Team%d", i), "severity": "warning", "family": fmt.Sprintf("f%d", i%100)}
	}
	alerts[0]["alertname"], alerts[1]["alertname"] = "NodeDown", "ClusterBlind"
	start := time.Now()
	got, err := c.Silencers(alerts)
	if err != nil {
		t.Fatal(err)
	}
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("took %s", took)
	}
	// NodeDown (no cluster or Hostname, as none of them has) silences every other warning.
	if len(got[5]) != 1 || got[5][0] != 0 {
		t.Errorf("alert 5 silenced by %v, want NodeDown (0)", got[5])
	}
}
