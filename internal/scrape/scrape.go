// Package scrape reads saved /metrics texts of dcgm-exporter (a curl of :9400/metrics, or what
// Prometheus stored) and tells what install sent them: the exporter version their names and
// labels point to, the host label, where pod attribution arrives, the GPU platform, MIG, vGPU
// guests, the job, the driver versions and the DCGM fields collected.
package scrape

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/gpuobs/gpuobs/internal/promql"
)

// Install is what scrapes tell about the exporter that sent them. Each setting comes with the
// evidence that decided it, for the catalog's comments.
type Install struct {
	// Version is the exporter.version profile the names and labels point to, and Evidence
	// says why.
	Version, VersionEvidence string
	// HostLabel is the label that names the node (Hostname up to 4.8.2, hostname from 4.8.3);
	// "" when no series has one.
	HostLabel string
	// Attribution is the label a GPU's pod arrives in: pod or exported_pod (renamed by
	// Prometheus: honorLabels false); "" when no GPU is held by a pod in the scrapes. Only a
	// text Prometheus stored (Stored) tells how Prometheus keeps it: a curl of the exporter
	// always shows pod.
	Attribution string
	// HPCJobs says some GPU series carry dcgm-exporter's HPC job label (hpc_job, from
	// --hpc-job-mapping-dir): a Slurm (or other batch) fleet's exporter.
	HPCJobs bool
	// GB200 says the scrapes hold Grace Blackwell's fabric or C2C fields.
	GB200 bool
	// MIG says some GPU reports MIG instances (label GPU_I_ID).
	MIG bool
	// VGPUGuests says the GPUs are vGPU guests: GRID models, or clocks without a temperature.
	VGPUGuests bool
	// Jobs are the job labels the GPU series carry (only where Prometheus stored the text).
	Jobs []string
	// Fields are the DCGM fields (DCGM_FI_ and DCGM_EXP_) the scrapes hold, Models and
	// Drivers the GPU models and driver versions they name, GPUs how many GPUs (by UUID).
	Fields, Models, Drivers []string
	GPUs                    int
	// Values are the lowest and highest value of each field, and Lines the line of each
	// field's first sample, as file:line.
	Values map[string][2]float64
	Lines  map[string]string

	// systemDriverLabel: the driver version arrives as DCGM_FI_SYSTEM_DRIVER_VERSION (4.9).
	systemDriverLabel bool
}

// Error is a scrape that does not parse: the file, the line and what is wrong, in the words
// of Prometheus' own parser, which rejects the whole scrape for it.
type Error struct {
	File string
	Line int
	Msg  string
}

func (e *Error) Error() string {
	if e.Line == 0 {
		return fmt.Sprintf("%s: %s", e.File, e.Msg)
	}
	return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
}

// Read parses one /metrics text (name is its file, for errors) and tells what it shows.
func Read(name string, data []byte) (*Install, error) {
	samples, err := promql.ParseExposition(data)
	if err != nil {
		var e *promql.ExpositionError
		if errors.As(err, &e) && e.Line > 0 {
			return nil, &Error{File: name, Line: e.Line, Msg: e.Msg + " (Prometheus' parser rejects the whole scrape for this line: the target reads as down)"}
		}
		return nil, &Error{File: name, Msg: err.Error()}
	}
	in := &Install{Values: map[string][2]float64{}, Lines: firstLines(name, data)}
	uuids := map[string]bool{}
	for _, s := range samples {
		if !strings.HasPrefix(s.Metric, "DCGM_FI_") && !strings.HasPrefix(s.Metric, "DCGM_EXP_") {
			continue
		}
		if !slices.Contains(in.Fields, s.Metric) {
			in.Fields = append(in.Fields, s.Metric)
		}
		in.note(s.Labels)
		in.value(s.Metric, s.Value)
		if u := s.Labels["UUID"]; u != "" {
			uuids[u] = true
		}
	}
	if len(in.Fields) == 0 {
		return nil, &Error{File: name, Msg: "holds no DCGM_FI_ or DCGM_EXP_ series: not a dcgm-exporter scrape"}
	}
	in.GPUs = len(uuids)
	in.decide()
	return in, nil
}

// value widens a field's range by one sample.
func (in *Install) value(field string, v float64) {
	r, seen := in.Values[field]
	if !seen {
		r = [2]float64{v, v}
	}
	in.Values[field] = [2]float64{min(r[0], v), max(r[1], v)}
}

// firstLines are the line of each metric's first sample, as file:line. (The parser has read
// the text; this only locates: a sample line starts with its metric name.)
func firstLines(name string, data []byte) map[string]string {
	out := map[string]string{}
	for i, line := range strings.Split(string(data), "\n") {
		if line == "" || line[0] == '#' {
			continue
		}
		metric, _, _ := strings.Cut(line, "{")
		metric, _, _ = strings.Cut(metric, " ")
		if _, ok := out[metric]; !ok {
			out[metric] = fmt.Sprintf("%s:%d", name, i+1)
		}
	}
	return out
}

// note takes what one series' labels tell.
func (in *Install) note(labels map[string]string) {
	for _, host := range []string{"hostname", "Hostname"} {
		if _, ok := labels[host]; ok {
			in.HostLabel = host
		}
	}
	switch {
	case labels["pod"] != "":
		in.Attribution = "pod"
	case labels["exported_pod"] != "" && in.Attribution == "":
		in.Attribution = "exported_pod"
	}
	if labels["GPU_I_ID"] != "" {
		in.MIG = true
	}
	if labels["hpc_job"] != "" {
		in.HPCJobs = true
	}
	add := func(list *[]string, v string) {
		if v != "" && !slices.Contains(*list, v) {
			*list = append(*list, v)
		}
	}
	add(&in.Jobs, labels["job"])
	add(&in.Models, labels["modelName"])
	add(&in.Drivers, labels["DCGM_FI_DRIVER_VERSION"])
	if v, ok := labels["DCGM_FI_SYSTEM_DRIVER_VERSION"]; ok {
		in.systemDriverLabel = true
		add(&in.Drivers, v)
	}
}

// Merge combines the scrapes of several node types into one install, and says where they
// disagree (one catalog cannot hold two exporter versions or host labels).
func Merge(installs []*Install) (*Install, []string) {
	out := &Install{Values: map[string][2]float64{}, Lines: map[string]string{}}
	var conflicts []string
	for _, in := range installs {
		for _, f := range []struct {
			name     string
			dst, src *string
		}{{"host label", &out.HostLabel, &in.HostLabel}, {"pod attribution", &out.Attribution, &in.Attribution}} {
			if *f.dst != "" && *f.src != "" && *f.dst != *f.src {
				conflicts = append(conflicts, fmt.Sprintf("the scrapes disagree on the %s (%s and %s): one catalog reads one", f.name, *f.dst, *f.src))
			}
			if *f.dst == "" {
				*f.dst = *f.src
			}
		}
		for f, r := range in.Values {
			out.value(f, r[0])
			out.value(f, r[1])
		}
		for f, at := range in.Lines {
			if _, ok := out.Lines[f]; !ok {
				out.Lines[f] = at
			}
		}
		out.GB200 = out.GB200 || in.GB200
		out.MIG = out.MIG || in.MIG
		out.HPCJobs = out.HPCJobs || in.HPCJobs
		out.VGPUGuests = out.VGPUGuests || in.VGPUGuests
		out.GPUs += in.GPUs
		for _, l := range []struct{ dst, src *[]string }{{&out.Jobs, &in.Jobs}, {&out.Models, &in.Models}, {&out.Drivers, &in.Drivers}, {&out.Fields, &in.Fields}} {
			for _, v := range *l.src {
				if !slices.Contains(*l.dst, v) {
					*l.dst = append(*l.dst, v)
				}
			}
		}
	}
	for _, in := range installs {
		if out.Version != "" && in.Version != out.Version {
			conflicts = append(conflicts, fmt.Sprintf("the scrapes point to two exporter versions (%s and %s): upgrade the older nodes, or write the catalog for the newer", out.Version, in.Version))
		}
		if versionRank(in.Version) > versionRank(out.Version) {
			out.Version, out.VersionEvidence = in.Version, in.VersionEvidence
		}
	}
	for _, l := range []*[]string{&out.Jobs, &out.Models, &out.Drivers, &out.Fields} {
		slices.Sort(*l)
	}
	slices.Sort(conflicts)
	return out, slices.Compact(conflicts)
}

// Stored says the texts are what Prometheus stored (their series carry a job), not a curl of
// the exporter: target labels, relabeling and honorLabels show in them.
func (in *Install) Stored() bool { return len(in.Jobs) > 0 }

// coreFields are default fields every exporter sends for every GPU, vGPU guests included: a
// text without one is cut (a poster's excerpt, a grep).
var coreFields = []string{"DCGM_FI_DEV_SM_CLOCK", "DCGM_FI_DEV_MEM_CLOCK", "DCGM_FI_DEV_FB_FREE", "DCGM_FI_DEV_FB_USED"}

// Cut are the core fields the texts lack: where there are any, the texts are excerpts and do
// not tell the counter set, nor a missing temperature.
func (in *Install) Cut() []string {
	var out []string
	for _, f := range coreFields {
		if !slices.Contains(in.Fields, f) {
			out = append(out, f)
		}
	}
	return out
}

// versions are the exporter profiles, oldest first.
var versions = []string{"4.8.2", "4.8.3", "4.9", "4.10"}

func versionRank(v string) int { return slices.Index(versions, v) }

// decide settles what the fields and labels seen point to.
func (in *Install) decide() {
	slices.Sort(in.Fields)
	slices.Sort(in.Jobs)
	slices.Sort(in.Models)
	slices.Sort(in.Drivers)
	has := func(f string) bool { return slices.Contains(in.Fields, f) }
	hasPrefix := func(p string) bool {
		return slices.ContainsFunc(in.Fields, func(f string) bool { return strings.HasPrefix(f, p) })
	}
	switch {
	case slices.ContainsFunc(in.Fields, func(f string) bool { return strings.HasSuffix(f, "_BYTES_PER_SECOND") }):
		in.Version, in.VersionEvidence = "4.10", "the byte rates are named …_BYTES_PER_SECOND"
	case has("DCGM_FI_DEV_CLOCKS_EVENT_REASONS") || in.systemDriverLabel:
		in.Version, in.VersionEvidence = "4.9", "the driver label is DCGM_FI_SYSTEM_DRIVER_VERSION or the clock-event bitmask is DCGM_FI_DEV_CLOCKS_EVENT_REASONS"
	case in.HostLabel == "hostname" || has("DCGM_EXP_XID_ERRORS_TOTAL") || has("DCGM_EXP_GPU_HEALTH_STATUS"):
		in.Version, in.VersionEvidence = "4.8.3", "the host label is hostname, or the exporter's cumulative XID counter or health check is there"
	default:
		in.Version, in.VersionEvidence = "4.8.2", "the host label is Hostname and nothing of 4.8.3 or later is there"
	}
	in.GB200 = hasPrefix("DCGM_FI_DEV_FABRIC_") || hasPrefix("DCGM_FI_DEV_C2C_")
	grid := slices.ContainsFunc(in.Models, func(m string) bool { return strings.HasPrefix(m, "GRID ") })
	in.VGPUGuests = grid || (len(in.Cut()) == 0 && !has("DCGM_FI_DEV_GPU_TEMP"))
}
