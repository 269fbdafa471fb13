// Package conventions holds every naming rule gpuobs applies: recording rule names,
// signal names derived from DCGM fields, and alert names.
package conventions

import (
	"fmt"
	"regexp"
	"strings"
)

// Aggregation levels of recording rules, finest first.
const (
	LevelGPU = "gpu"
	// LevelGPUPod is one GPU, or one pod's share of a MIG GPU: what GPU alerts keep.
	LevelGPUPod    = "gpu_pod"
	LevelNode      = "node"
	LevelNamespace = "namespace"
	LevelCluster   = "cluster"
	LevelFleet     = "fleet"
)

// MaxAlertNameLength is the longest alert name allowed.
const MaxAlertNameLength = 40

// alertPrefixes are the family prefixes an alert name starts with.
var alertPrefixes = []string{"GPU", "DCGM", "SLO"}

var (
	alertName  = regexp.MustCompile(`^[A-Z][A-Za-z0-9]*$`)
	recordName = regexp.MustCompile(`^[a-z][a-z0-9_]*:[a-z][a-z0-9_]*:[a-z][a-z0-9_]*$`)
)

// RecordName is a recording rule's name, level:metric:operation.
func RecordName(level, metric, operation string) string {
	return level + ":" + metric + ":" + operation
}

// SignalName is the metric part of the recording rules derived from a DCGM field:
// DCGM_FI_DEV_GPU_TEMP becomes dcgm_gpu_temp, DCGM_FI_PROF_SM_ACTIVE dcgm_sm_active.
func SignalName(field string) string {
	name := field
	for _, prefix := range []string{"DCGM_FI_DEV_", "DCGM_FI_PROF_", "DCGM_FI_"} {
		if strings.HasPrefix(name, prefix) {
			name = strings.TrimPrefix(name, prefix)
			break
		}
	}
	return "dcgm_" + strings.ToLower(name)
}

// ThrottleSignalName is the metric part of the per-GPU flag of one throttle reason.
func ThrottleSignalName(reason string) string { return "dcgm_clock_throttle_" + reason }

// GPUInfo is the recorded series that maps every GPU (or MIG instance) to the pod holding it,
// labelled with the alert identity; value 1.
var GPUInfo = RecordName(LevelGPUPod, "dcgm_gpu_info", "group")

// Health is the record of the series that tell each GPU (or MIG instance) is there: each one's
// first health field that it sends, with every label of the exporter's series.
var Health = RecordName(LevelGPUPod, "dcgm_health", "group")

// Operation is the operation part of a recorded name (avg of cluster:dcgm_sm_active:avg).
func Operation(record string) string { return record[strings.LastIndex(record, ":")+1:] }

// GPUShare is the recorded share of a GPU that each pod holds on each GPU or MIG instance (a
// catalog record, cost.libsonnet): namespace rollups weigh each series by it.
var GPUShare = RecordName(LevelGPUPod, "gpu_allocated", "share")

// GPUCounter names the per-GPU record of a counter signal: the largest of the GPU's series,
// whatever their pod or target labels.
func GPUCounter(signal string) string { return RecordName(LevelGPU, signal, "max") }

// RateOperation names a rate over a window, e.g. rate5m.
func RateOperation(window string) string { return "rate" + window }

// CheckAlertName reports why name is not a valid gpuobs alert name.
func CheckAlertName(name string) error {
	if !alertName.MatchString(name) {
		return fmt.Errorf("alert name %q is not CamelCase", name)
	}
	if len(name) > MaxAlertNameLength {
		return fmt.Errorf("alert name %q is %d characters; at most %d", name, len(name), MaxAlertNameLength)
	}
	for _, p := range alertPrefixes {
		if strings.HasPrefix(name, p) {
			return nil
		}
	}
	return fmt.Errorf("alert name %q does not start with a family prefix (%s)", name, strings.Join(alertPrefixes, ", "))
}

// CheckRecordName reports why name is not level:metric:operation.
func CheckRecordName(name string) error {
	if !recordName.MatchString(name) {
		return fmt.Errorf("recording rule name %q is not level:metric:operation", name)
	}
	return nil
}
