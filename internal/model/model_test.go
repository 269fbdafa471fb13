package model_test

import (
	"slices"
	"testing"

	"github.com/gpuobs/gpuobs/internal/model"
)

// TestSortedKeys: the keys in order, whatever the map's own order; none for an empty map.
func TestSortedKeys(t *testing.T) {
	if got := model.SortedKeys(map[string]int{"b": 1, "c": 2, "a": 3}); !slices.Equal(got, []string{"a", "b", "c"}) {
		t.Errorf("SortedKeys = %q", got)
	}
	timing := map[model.Severity]model.Timing{model.SeverityWarning: {}, model.SeverityCritical: {}, model.SeverityInfo: {}}
	if got := model.SortedKeys(timing); !slices.Equal(got, []model.Severity{"critical", "info", "warning"}) {
		t.Errorf("SortedKeys of severities = %q", got)
	}
	if got := model.SortedKeys(map[string]bool{}); len(got) != 0 {
		t.Errorf("SortedKeys of an empty map = %q", got)
	}
}

// TestValid: a value is valid when it is one of the enumeration's, exactly.
func TestValid(t *testing.T) {
	for _, c := range []struct {
		kind model.Kind
		want bool
	}{
		{model.KindCounter, true},
		{model.KindLastEvent, true},
		{"Counter", false},
		{"rate", false},
		{"", false},
	} {
		if got := model.Valid(c.kind, model.Kinds); got != c.want {
			t.Errorf("Valid(%q, Kinds) = %v, want %v", c.kind, got, c.want)
		}
	}
	if model.Valid(model.RollupSum, nil) {
		t.Error("a value is valid in an empty enumeration")
	}
}

// TestTopologySharded: only the sharded mode splits the rules.
func TestTopologySharded(t *testing.T) {
	for mode, want := range map[string]bool{model.TopologySharded: true, model.TopologySingle: false, "": false} {
		if got := (model.Topology{Mode: mode}).Sharded(); got != want {
			t.Errorf("Topology{Mode: %q}.Sharded() = %v, want %v", mode, got, want)
		}
	}
}

// TestGrafanaDeployWrites: a schema is written when it is listed.
func TestGrafanaDeployWrites(t *testing.T) {
	for _, c := range []struct {
		schemas     []string
		classic, v2 bool
	}{
		{[]string{model.SchemaClassic}, true, false},
		{[]string{model.SchemaV2}, false, true},
		{[]string{model.SchemaClassic, model.SchemaV2}, true, true},
		{nil, false, false},
	} {
		g := model.GrafanaDeploy{Schemas: c.schemas}
		if g.Writes(model.SchemaClassic) != c.classic || g.Writes(model.SchemaV2) != c.v2 {
			t.Errorf("schemas %q: writes classic %v, v2 %v; want %v, %v", c.schemas, g.Writes(model.SchemaClassic), g.Writes(model.SchemaV2), c.classic, c.v2)
		}
	}
}

// TestKubernetesAllocation: a mixed fleet hands GPUs out both ways, the others one way.
func TestKubernetesAllocation(t *testing.T) {
	for _, c := range []struct {
		allocation        string
		devicePlugin, dra bool
	}{
		{model.AllocationDevicePlugin, true, false},
		{model.AllocationDRA, false, true},
		{model.AllocationMixed, true, true},
	} {
		k := model.Kubernetes{GPUAllocation: c.allocation}
		if k.DevicePlugin() != c.devicePlugin || k.DRA() != c.dra {
			t.Errorf("%s: DevicePlugin %v, DRA %v; want %v, %v", c.allocation, k.DevicePlugin(), k.DRA(), c.devicePlugin, c.dra)
		}
	}
}

// TestSeverityTier: pages and tickets by the on-call's names, other severities as they are.
func TestSeverityTier(t *testing.T) {
	for s, want := range map[model.Severity]string{
		model.SeverityCritical: "page",
		model.SeverityWarning:  "ticket",
		model.SeverityInfo:     "info",
		"P1":                   "P1",
		"":                     "no severity",
	} {
		if got := s.Tier(); got != want {
			t.Errorf("Severity(%q).Tier() = %q, want %q", s, got, want)
		}
	}
}

// TestCollected: the default counter set and the extra counters are collected; a deployed
// counter file, when given, replaces both.
func TestCollected(t *testing.T) {
	m := &model.Model{
		Fields: map[string]model.Field{
			"DCGM_FI_DEV_GPU_TEMP":          {Default: true},
			"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL": {},
			"DCGM_FI_DEV_XID_ERRORS":        {},
		},
		Exporter: model.Exporter{ExtraCounters: []string{"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL", "DCGM_FI_PROF_NOT_IN_CATALOG"}},
	}
	declared := map[string]bool{
		"DCGM_FI_DEV_GPU_TEMP":          true,  // default set
		"DCGM_FI_DEV_ECC_DBE_VOL_TOTAL": true,  // extra counter
		"DCGM_FI_PROF_NOT_IN_CATALOG":   true,  // extra counter the catalog does not describe
		"DCGM_FI_DEV_XID_ERRORS":        false, // neither
		"DCGM_FI_DEV_UNKNOWN":           false,
	}
	for field, want := range declared {
		if got := m.Collected(field); got != want {
			t.Errorf("declared set: Collected(%s) = %v, want %v", field, got, want)
		}
	}
	m.Exporter.Deployed = map[string]bool{"DCGM_FI_DEV_XID_ERRORS": true}
	for field, want := range map[string]bool{"DCGM_FI_DEV_XID_ERRORS": true, "DCGM_FI_DEV_GPU_TEMP": false, "DCGM_FI_DEV_ECC_DBE_VOL_TOTAL": false} {
		if got := m.Collected(field); got != want {
			t.Errorf("deployed file: Collected(%s) = %v, want %v", field, got, want)
		}
	}
}

// TestRunbookURL: the base URL, the alert's name, .md.
func TestRunbookURL(t *testing.T) {
	m := &model.Model{Runbooks: model.Runbooks{BaseURL: "https://runbooks.example/gpu/"}}
	if got, want := m.RunbookURL("GPUFellOffBus"), "https://runbooks.example/gpu/GPUFellOffBus.md"; got != want {
		t.Errorf("RunbookURL = %q, want %q", got, want)
	}
}
