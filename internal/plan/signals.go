package plan

import (
	"fmt"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/internal/conventions"
	"github.com/gpuobs/gpuobs/internal/model"
)

// Signal is one per-GPU quantity that gets recorded at every level.
type Signal struct {
	// Name is the metric part of the recorded names.
	Name string
	// Family is the rule group.
	Family string
	// Field is the DCGM field the signal is read from.
	Field string
	// Entity is the field's entity level; it decides how MIG instances collapse.
	Entity model.Entity
	// Rollup is how GPUs combine upward: avg, sum, max, or rate (counters, summed).
	Rollup model.Rollup
	// ThrottleBits, when set, makes the signal a 0/1 flag: any of these bitmask bits set.
	ThrottleBits []int
	// ByNamespace adds a namespace rollup over pod-attributed series.
	ByNamespace bool
	// Copied is set when the exporter copies a shared GPU's series to every pod on it
	// (exporter.virtualGPUs): the series of one GPU or MIG instance then repeat its value.
	Copied bool
	// PerProcess is set when, under virtual GPUs, each pod's series holds its own processes'
	// value instead of a copy, next to the device's series without pod labels.
	PerProcess bool
}

// Signals derives the recorded signals from the catalog: every field with a rollup, and one
// flag per throttle reason decoded from the configured clock-event bitmask field. A signal is
// named after the catalog's name of its field, which exporter.fieldNames does not change: the
// recorded names stay the same whatever the exporter calls the field.
func Signals(m *model.Model) []Signal {
	catalogName := map[string]string{}
	for old, exported := range m.Exporter.FieldNames {
		catalogName[exported] = old
	}
	var out []Signal
	for _, name := range model.SortedKeys(m.Fields) {
		f := m.Fields[name]
		if f.Rollup == model.RollupNone {
			continue
		}
		named := name
		if old, ok := catalogName[name]; ok {
			named = old
		}
		out = append(out, Signal{
			Name: conventions.SignalName(named), Family: f.Family, Field: name, Entity: f.Entity, Rollup: f.Rollup, ByNamespace: f.ByNamespace,
			Copied: m.Exporter.VirtualGPUs, PerProcess: m.Exporter.VirtualGPUs && slices.Contains(m.Exporter.PerProcessFields, name),
		})
	}
	bitmask := m.Fields[m.Exporter.ThrottleReasonsField]
	for _, reason := range model.SortedKeys(m.ThrottleReasons) {
		out = append(out, Signal{
			Name:         conventions.ThrottleSignalName(reason),
			Family:       bitmask.Family,
			Field:        m.Exporter.ThrottleReasonsField,
			Entity:       bitmask.Entity,
			Rollup:       model.RollupSum,
			ThrottleBits: m.ThrottleReasons[reason].Bits,
			Copied:       m.Exporter.VirtualGPUs,
		})
	}
	return out
}

// source is the per-series expression of the signal, on the field selected with matchers.
func (s Signal) source(rateWindow string, matchers ...string) string {
	sel := s.Field
	if len(matchers) > 0 {
		sel += "{" + strings.Join(matchers, ", ") + "}"
	}
	switch {
	case s.Rollup == model.RollupRate:
		return fmt.Sprintf("rate(%s[%s])", sel, rateWindow)
	case len(s.ThrottleBits) > 0:
		tests := make([]string, len(s.ThrottleBits))
		for i, b := range s.ThrottleBits {
			tests[i] = fmt.Sprintf("floor(%s / %d) %% 2", sel, b)
		}
		return fmt.Sprintf("(%s) > bool 0", strings.Join(tests, " + "))
	default:
		return sel
	}
}

// gpuAggregation collapses the series of one GPU into one: device-level values repeated on
// every MIG instance, or copied to every pod of a shared GPU, are deduplicated with max, never
// summed.
func (s Signal) gpuAggregation() string {
	if s.Entity == model.EntityMIGRepeated || (s.Copied && s.Entity != model.EntityMIGNative) {
		return "max"
	}
	return s.upAggregation()
}

// perGPU is the expression of the signal's value per GPU (labels: the GPU identity), from the
// raw series. A MIG instance's series copied to the pods sharing it collapse first, to the
// largest: the copies are equal, and the device's own series holds at least any one pod's part.
func (s Signal) perGPU(m *model.Model, rateWindow string) string {
	src := s.source(rateWindow)
	if s.Copied && s.Entity == model.EntityMIGNative {
		src = fmt.Sprintf("max %s (%s)", by(append(slices.Clone(m.Identity.GPU), m.Labels.MIGInstance)...), src)
	}
	return fmt.Sprintf("%s %s (%s)", s.gpuAggregation(), by(m.Identity.GPU...), src)
}

// copiedToPods reports whether each pod-attributed series of the signal repeats a value of the
// whole GPU (a device-level value on every MIG instance, or a copy per pod of a shared GPU), so
// that a namespace sum must split it by the pods' shares.
func (s Signal) copiedToPods() bool {
	return s.Entity == model.EntityMIGRepeated || (s.Copied && !s.PerProcess)
}

// needsCollapse reports whether the series of one GPU must be combined before GPUs are
// combined. A value repeated on every MIG instance must count once per GPU, unless only the
// maximum is taken; an average over GPUs needs each GPU's own average of its MIG instances
// first. Series copied to the pods of a shared GPU always collapse first. Otherwise combining
// the raw series directly gives the same result, for less work.
func (s Signal) needsCollapse() bool {
	if s.Copied {
		return true
	}
	switch s.Entity {
	case model.EntityMIGRepeated:
		return s.upAggregation() != "max"
	case model.EntityMIGNative:
		return s.upAggregation() == "avg"
	default: // one series per GPU
		return false
	}
}

// upAggregation is the PromQL aggregation that combines GPUs into nodes, namespaces, clusters
// and the fleet: the rollup's own, or sum for rates.
func (s Signal) upAggregation() string {
	if s.Rollup == model.RollupRate {
		return "sum"
	}
	return string(s.Rollup)
}

// operation names an aggregation in a recorded name: a counter's rate keeps its window
// (sums of rates are still rates), anything else is named by its aggregation.
func (s Signal) operation(aggregation, rateWindow string) string {
	if s.Rollup == model.RollupRate && aggregation != "count" {
		return conventions.RateOperation(rateWindow)
	}
	return aggregation
}
