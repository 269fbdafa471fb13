package catalog

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gpuobs/gpuobs/internal/conventions"
)

// TestJsonnetNamesFollowConventions keeps lib/names.libsonnet, which alert expressions use to
// name recorded series, in step with the Go naming rules that produce them.
func TestJsonnetNamesFollowConventions(t *testing.T) {
	snippet := `
local gpuobs = import 'gpuobs.libsonnet';
local names = import 'lib/names.libsonnet';
{
  signals: { [f]: names.signal(f) for f in std.objectFields(gpuobs.fields) },
  rates: { [f]: names.gpuRate(f, gpuobs.recording.rateWindow) for f in std.objectFields(gpuobs.fields) },
  counters: { [f]: names.gpuCounter(f) for f in std.objectFields(gpuobs.fields) },
  throttle: { [r]: names.gpuThrottle(r) for r in std.objectFields(gpuobs.throttleReasons) },
  rateWindow: gpuobs.recording.rateWindow,
  gpuInfo: names.gpuInfo,
  health: names.health,
  gpuShare: names.gpuShare,
}`
	path := filepath.Join(t.TempDir(), "names.jsonnet")
	if err := os.WriteFile(path, []byte(snippet), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := Evaluate(Options{ConfigPath: path})
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Signals, Rates, Counters, Throttle    map[string]string
		RateWindow, GPUInfo, GPUShare, Health string
	}
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatal(err)
	}
	if len(got.Signals) == 0 || len(got.Throttle) == 0 {
		t.Fatal("nothing to compare")
	}
	for field, name := range got.Signals {
		if want := conventions.SignalName(field); name != want {
			t.Errorf("signal(%s) = %s, Go names it %s", field, name, want)
		}
		want := conventions.RecordName(conventions.LevelGPU, conventions.SignalName(field), conventions.RateOperation(got.RateWindow))
		if got.Rates[field] != want {
			t.Errorf("gpuRate(%s) = %s, Go names it %s", field, got.Rates[field], want)
		}
		if want := conventions.GPUCounter(conventions.SignalName(field)); got.Counters[field] != want {
			t.Errorf("gpuCounter(%s) = %s, Go names it %s", field, got.Counters[field], want)
		}
	}
	if got.Health != conventions.Health {
		t.Errorf("health = %s, Go names it %s", got.Health, conventions.Health)
	}
	if got.GPUInfo != conventions.GPUInfo {
		t.Errorf("gpuInfo = %s, Go names it %s", got.GPUInfo, conventions.GPUInfo)
	}
	if got.GPUShare != conventions.GPUShare {
		t.Errorf("gpuShare = %s, Go names it %s", got.GPUShare, conventions.GPUShare)
	}
	for reason, name := range got.Throttle {
		if want := conventions.RecordName(conventions.LevelGPU, conventions.ThrottleSignalName(reason), "max"); name != want {
			t.Errorf("gpuThrottle(%s) = %s, Go names it %s", reason, name, want)
		}
	}
}

// TestFillReadsAsItRuns: a query written as a ||| block gets its pieces filled in place, and
// a piece left unnamed is an error naming the query, not a query with $(x) in it.
func TestFillReadsAsItRuns(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	ok := write("ok.jsonnet", "local e = import 'lib/expr.libsonnet';\ne.fill(|||\n  max by ($(by)) (x > $(th))\n|||, { by: 'cluster, gpu', th: '0.5' })\n")
	out, err := Evaluate(Options{ConfigPath: ok})
	if err != nil || out != `"max by (cluster, gpu) (x > 0.5)"` {
		t.Errorf("filled %q (%v)", out, err)
	}
	missing := write("missing.jsonnet", "local e = import 'lib/expr.libsonnet';\ne.fill('max by ($(by)) (x > $(th))', { by: 'gpu' })\n")
	if _, err := Evaluate(Options{ConfigPath: missing}); err == nil || !strings.Contains(err.Error(), "unfilled piece in query: max by (gpu) (x > $(th))") {
		t.Errorf("an unfilled piece: %v", err)
	}
}
