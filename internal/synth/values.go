package synth

import "github.com/gpuobs/gpuobs/internal/model"

// plausibleStep and plausibleOffset make synthetic values plausible for their unit, in the
// Grafana unit the catalog shows it in (a field in MHz is shown in hertz, scale 1e6: its step is
// 210e6 Hz, 210 MHz); healthy values stay well below every default alert threshold
// (temperatures from 44 to 68 °C, a span within which no GPU of the healthy fleet sits the
// peer-comparison threshold above its peers' average; the span is not itself below that
// threshold, so a test fleet with other GPUs must check it).
var plausibleStep = map[string]float64{
	"celsius":     4,
	"percentunit": 0.125,
	"percent":     12.5,
	"watt":        50,
	"mbytes":      1024,
	"Bps":         1 << 30,
	"hertz":       210e6,
	"bytes":       1 << 30,
	"bool":        0,
}

var plausibleOffset = map[string]float64{"celsius": 40}

// step is a small number from 1 to 7 that differs between GPUs, fields and MIG instances.
func step(f model.Field, g GPU, e Entity) int {
	k := (g.Seq*3+f.ID)%7 + 1
	if e.MIG != nil && f.Entity == model.EntityMIGNative {
		k = (k+e.MIG.ID)%7 + 1
	}
	return k
}

// GaugeValue is a healthy value of a gauge field on one entity of a GPU. Device-level fields
// repeated per MIG instance carry the same value on every instance, as dcgm-exporter reports;
// a pod's series of a per-process field under virtual GPUs holds its part of the value.
func GaugeValue(m *model.Model, f model.Field, g GPU, e Entity) float64 {
	// Memory a workload uses is in use only where a pod holds the GPU or instance: one no pod
	// holds uses none (memory held there is a leaked context, which alerts).
	held := len(g.Pods()) > 0
	if e.MIG != nil {
		held = e.MIG.Pod != nil
	}
	if f.ByNamespace && f.Family == "memory" && !held {
		return 0
	}
	shown := m.Units[f.Unit].Display
	size, ok := plausibleStep[shown.Grafana]
	if !ok {
		size = shown.Scale
	}
	return (plausibleOffset[shown.Grafana] + size*float64(step(f, g, e))) / shown.Scale * e.Part
}

// CounterIncrease is how much a counter field grows per minute on one entity of a GPU.
func CounterIncrease(f model.Field, g GPU, e Entity) float64 {
	return float64(step(f, g, e))
}

// throttleReasons cycles through idle, no reason, and real throttle reasons.
var throttleReasons = []int{0, 1, 4, 32, 0x48, 3, 128, 8}

// ThrottleReasons is the clock-event bitmask a GPU reports.
func ThrottleReasons(g GPU) int { return throttleReasons[g.Seq%len(throttleReasons)] }
