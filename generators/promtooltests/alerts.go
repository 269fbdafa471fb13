package promtooltests

import (
	"fmt"
	"hash/fnv"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/gpuobs/gpuobs/internal/model"
	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/synth"
)

const scenarioCluster = "prod"

// scenario is where one case plays: its own cluster and host (named after the alert and the
// case) and its own block of GPU sequence numbers, from which its GPUs' UUIDs and its exporter's
// address derive. Both follow the case's name, not its position, so that adding a case changes
// only the lines of its own series and expectations.
type scenario struct {
	name string
	seq  int
}

// gpusPerScenario is the size of a block of sequence numbers: a scenario with more GPUs takes
// as many consecutive blocks as it needs.
const gpusPerScenario = 32

// maxScenarioGPUs bounds one scenario's GPUs: every scenario of the alert tests plays in one
// test group, whose queries share promtool's limit of samples (two scenarios of 741 GPUs
// beside the embedded catalog's others exceed it). The GPU availability SLO's scenarios are
// sized to the same bound (libsonnet/slos/availability.libsonnet).
const maxScenarioGPUs = 512

// scenarios gives every case of every alert its scenario. A case's blocks start at a hash of the
// alert's and the case's names; where one of them is taken, they start at the next block from
// which enough are free, in the order of alert names and cases (only the cases whose hashes meet
// move when one of them is renamed).
func scenarios(m *model.Model) (map[string][]scenario, error) {
	out := map[string][]scenario{}
	taken := map[int]bool{}
	names := map[string]string{}
	for _, alert := range model.SortedKeys(m.Alerts) {
		for _, c := range m.Alerts[alert].Tests {
			name := scenarioName(alert, c.Name)
			if other, ok := names[name]; ok {
				return nil, fmt.Errorf("alerts.%s.tests: the cases %q and %q both play as scenario %s: give each case of an alert a name of its own (the first 40 letters and digits tell them apart)", alert, other, c.Name, name)
			}
			names[name] = c.Name
			blocks := (max(c.GPUs, 1) + gpusPerScenario - 1) / gpusPerScenario
			if c.GPUs > maxScenarioGPUs {
				return nil, fmt.Errorf("alerts.%s.tests: case %q has %d GPUs; a scenario has at most %d", alert, c.Name, c.GPUs, maxScenarioGPUs)
			}
			block := int(hash(name) % scenarioBlocks)
			for tries := 0; !free(taken, block, blocks); tries++ {
				if tries == scenarioBlocks {
					return nil, fmt.Errorf("alerts.%s.tests: no %d free blocks of sequence numbers are left for case %q", alert, blocks, c.Name)
				}
				block = (block + 1) % scenarioBlocks
			}
			for b := block; b < block+blocks; b++ {
				taken[b] = true
			}
			out[alert] = append(out[alert], scenario{name: name, seq: firstScenarioSeq + block*gpusPerScenario})
		}
	}
	return out, nil
}

// free tells whether the n blocks from first are all below scenarioBlocks and none is taken.
func free(taken map[int]bool, first, n int) bool {
	if first+n > scenarioBlocks {
		return false
	}
	for b := first; b < first+n; b++ {
		if taken[b] {
			return false
		}
	}
	return true
}

// Scenario sequence numbers start above the healthy GPUs' and span scenarioBlocks blocks
// (2^16: the exporter addresses below hold them).
const (
	firstScenarioSeq = 1 << 10
	scenarioBlocks   = 1 << 16
)

// hash is FNV-1a of s.
func hash(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// scenarioGPUs are the synthetic GPUs a scenario plays on: its own cluster, host and exporter,
// so that cluster-wide alerts see only the scenario. On a Slurm fleet (slurm), the GPUs of a
// scenario whose workload has an owner are one job's, the job named as the owner.
func scenarioGPUs(s scenario, c model.AlertCase, slurm bool) []synth.GPU {
	name := s.name
	block := (s.seq - firstScenarioSeq) / gpusPerScenario
	gpus := make([]synth.GPU, max(c.GPUs, 1))
	pods := 0
	pod := func() *synth.Pod {
		if !c.Pod {
			return nil
		}
		pods++
		if slurm && c.Owner != "" {
			return &synth.Pod{Namespace: scenarioNamespace, Name: c.Owner, Container: "worker"}
		}
		if c.OnePod {
			return &synth.Pod{Namespace: scenarioNamespace, Name: name + "-0", Container: "worker"}
		}
		return &synth.Pod{Namespace: scenarioNamespace, Name: fmt.Sprintf("%s-%d", name, pods-1), Container: "worker"}
	}
	for i := range gpus {
		g := synth.GPU{
			Cluster:  name,
			Host:     name,
			Instance: fmt.Sprintf("10.1.%d.%d:9400", block>>8, block&0xff),
			Index:    i,
			Seq:      s.seq + i,
			Model:    synth.ModelName,
		}
		if i < len(c.Drivers) {
			g.Driver = c.Drivers[i]
		}
		if i < len(c.Models) {
			g.Model = c.Models[i]
		}
		if c.MIG {
			g.MIG = []synth.MIGInstance{{ID: 1, Profile: "3g.40gb", Pod: pod()}, {ID: 2, Profile: "3g.40gb", Pod: pod()}}
		} else {
			g.Pod = pod()
		}
		gpus[i] = g
	}
	return gpus
}

// scenarioName names a scenario's cluster and host: the alert's name and the case's, lower
// case, with a dash for each run of other characters than letters and digits, the case's part
// cut at its first 40 characters.
func scenarioName(alert, caseName string) string {
	slug := strings.Trim(nonAlphanumeric.ReplaceAllString(strings.ToLower(caseName), "-"), "-")
	if len(slug) > 40 {
		slug = strings.TrimRight(slug[:40], "-")
	}
	return strings.ToLower(alert) + "-" + slug
}

// nonAlphanumeric is a run of characters a scenario name does not keep.
var nonAlphanumeric = regexp.MustCompile(`[^a-z0-9]+`)

// scenarioNamespace holds the pods of every scenario.
const scenarioNamespace = "ml-team"

// healthyGPUs share the alert scenarios' test group and must never make an alert fire:
// a whole GPU held by a pod, an idle unallocated GPU, and a MIG GPU with one instance in use.
func healthyGPUs() []synth.GPU {
	return []synth.GPU{
		{Cluster: scenarioCluster, Host: "healthy-0", Instance: "10.2.0.1:9400", Index: 0, Seq: 1, Model: synth.ModelName,
			Pod: &synth.Pod{Namespace: "ml-team", Name: "trainer-0", Container: "trainer"}},
		{Cluster: scenarioCluster, Host: "healthy-0", Instance: "10.2.0.1:9400", Index: 1, Seq: 2, Model: synth.ModelName},
		{Cluster: scenarioCluster, Host: "healthy-1", Instance: "10.2.0.2:9400", Index: 0, Seq: 3, Model: synth.ModelName,
			MIG: []synth.MIGInstance{{ID: 1, Profile: "1g.10gb", Pod: &synth.Pod{Namespace: "inference", Name: "llm-0", Container: "vllm"}}, {ID: 2, Profile: "1g.10gb"}}},
	}
}

// expectation is one alert expected to fire at the evaluation time.
type expectation struct {
	labels synth.Labels
	value  float64
}

// alertTests puts every scenario in one test group (promtool's cost grows with groups, not
// cases) and checks each alert once, at the evaluation time: the alert's firing set must be
// exactly the identities of its firing scenarios, which proves the quiet scenarios stay quiet.
func alertTests(p *plan.Plan, steps int) (testFile, error) {
	m := p.Model
	group := testGroup{Name: "alerts: every scenario on its own cluster", Interval: m.Tests.Interval}
	expected := map[string][]expectation{}
	names := model.SortedKeys(m.Alerts)
	all, err := scenarios(m)
	if err != nil {
		return testFile{}, err
	}
	for _, name := range names {
		a := m.Alerts[name]
		for ci, c := range a.Tests {
			gpus := scenarioGPUs(all[name][ci], c, m.Scheduler == model.SchedulerSlurm)
			group.InputSeries = append(group.InputSeries, scenarioSeries(m, gpus, c, steps)...)
			cluster := all[name][ci].name
			if c.Fires {
				for _, id := range firingIdentities(m, gpus, c, cluster, a.Identity, c.Firing, c.Target) {
					for _, l := range c.Without {
						delete(id, l)
					}
					expected[name] = append(expected[name], expectation{labels: id.With(atScenario(c.Labels, gpus)), value: *c.Value})
				}
			}
			for _, also := range c.AlsoFires {
				for _, id := range firingIdentities(m, gpus, c, cluster, m.Alerts[also.Alert].Identity, also.Firing, also.Target) {
					expected[also.Alert] = append(expected[also.Alert], expectation{labels: id.With(also.Labels), value: also.Value})
				}
			}
		}
	}
	seenUp := map[string]bool{}
	for _, g := range healthyGPUs() {
		group.InputSeries = append(group.InputSeries, gpuSeries(m, g, steps, flatCounters, 1)...)
		if !seenUp[g.Instance] {
			seenUp[g.Instance] = true
			group.InputSeries = append(group.InputSeries, upSeries(m, g, constant(1, steps)))
		}
	}
	for _, name := range names {
		t := alertTest{EvalTime: m.Tests.EvalTime, Alertname: name, ExpAlerts: []expAlert{}}
		for _, e := range expected[name] {
			ea, err := expectedAlert(p.Alerts[name], e)
			if err != nil {
				return testFile{}, err
			}
			t.ExpAlerts = append(t.ExpAlerts, ea)
		}
		sort.Slice(t.ExpAlerts, func(i, j int) bool {
			return synth.Series("", t.ExpAlerts[i].ExpLabels) < synth.Series("", t.ExpAlerts[j].ExpLabels)
		})
		group.AlertRuleTests = append(group.AlertRuleTests, t)
	}
	return testFile{RuleFiles: ruleFiles(p), EvaluationInterval: m.Tests.Interval, Tests: []testGroup{group}}, nil
}

// scenarioSeries are a scenario's input series: its own series on the selected entities of its
// GPUs, the health field of every GPU, the exporter's up series, the owner of every pod, and its
// series that are not on a GPU.
func scenarioSeries(m *model.Model, gpus []synth.GPU, c model.AlertCase, steps int) []series {
	var out []series
	for _, s := range c.Series {
		for i, e := range entitiesOf(m, gpus, synth.EntityOf(m, s.Metric)) {
			if !selected(s.Entities, i) {
				continue
			}
			labels := e.Labels
			if s.WithoutPod {
				labels = e.WithoutPod(m)
			}
			out = append(out, series{Series: synth.Series(s.Metric, labels.With(s.Labels)), Values: s.Values})
		}
	}
	owned := map[string]bool{} // the pods whose owner series is written: one each
	for _, g := range gpus {
		if c.Health != "" {
			for _, e := range g.Entities(m, synth.EntityOf(m, m.Exporter.HealthFields[0])) {
				out = append(out, series{Series: synth.Series(m.Exporter.HealthFields[0], e.Labels), Values: c.Health})
			}
		}
		if c.ExtraHealth != "" {
			out = append(out, series{Series: synth.Series(m.Exporter.HealthFields[0], g.WithoutPod(m)), Values: c.ExtraHealth})
		}
		if c.Owner != "" && m.Scheduler != model.SchedulerSlurm {
			for _, p := range g.Pods() {
				if !owned[p.Name] {
					owned[p.Name] = true
					out = append(out, series{Series: synth.Series("kube_pod_owner", ownerLabels(m, g.Cluster, p, c)), Values: constant(1, steps)})
				}
			}
		}
	}
	if c.NodeInfo != "" {
		out = append(out, nodeInfo(m, gpus[0], c.NodeInfo))
	}
	for _, s := range c.Extra {
		labels := synth.Labels{m.Labels.Cluster: gpus[0].Cluster}.With(atScenario(s.Labels, gpus))
		out = append(out, series{Series: synth.Series(s.Metric, labels), Values: s.Values})
	}
	return append(withCounterFile(m, c, out, steps), upSeries(m, gpus[0], c.Up))
}

// nodeInfo is the series by which the scheduler knows the node of g: kube-state-metrics'
// kube_node_info, or on a Slurm fleet slurmctld's GPU count of the node (its name the host's).
func nodeInfo(m *model.Model, g synth.GPU, values string) series {
	if m.Scheduler == model.SchedulerSlurm {
		labels := synth.Labels{m.Labels.Cluster: g.Cluster, "job": m.Slurm.Job, "instance": "slurmctld:6817", m.Slurm.NodeLabel: g.Host}
		return series{Series: synth.Series("slurm_node_gpus", labels), Values: values}
	}
	labels := synth.Labels{m.Labels.Cluster: g.Cluster, "job": m.KubeStateMetrics.Job, "instance": "kube-state-metrics:8080", m.Labels.Node: g.Host}
	return series{Series: synth.Series("kube_node_info", labels), Values: values}
}

// ScenarioHost, as a label value of a scenario's extra series or target, stands for the host
// of the scenario's GPUs (lib/test.libsonnet's scenarioHost): a kube-state-metrics node that
// the scenario's exporter reports from.
const ScenarioHost = "$host"

// ScenarioUUID, followed by a GPU's index, stands in a label value for the UUID of that GPU of
// the scenario as CUDA names it (lib/test.libsonnet's scenarioUUID): its UUID label's digits
// without NVML's "GPU-". "$uuid1" is the second GPU's.
const ScenarioUUID = "$uuid"

// atScenario replaces ScenarioHost in label values with the scenario's host and ScenarioUUID
// with its GPUs' CUDA UUIDs (the last GPU first, so that "$uuid1" does not take "$uuid10").
func atScenario(labels map[string]string, gpus []synth.GPU) map[string]string {
	out := make(map[string]string, len(labels))
	for k, v := range labels {
		for i := len(gpus) - 1; i >= 0; i-- {
			v = strings.ReplaceAll(v, ScenarioUUID+strconv.Itoa(i), strings.TrimPrefix(gpus[i].UUID(), "GPU-"))
		}
		out[k] = strings.ReplaceAll(v, ScenarioHost, gpus[0].Host)
	}
	return out
}

// ownerKind is the kind of controller that owns a scenario's pods: a Job unless it says.
func ownerKind(c model.AlertCase) string {
	if c.OwnerKind != "" {
		return c.OwnerKind
	}
	return "Job"
}

// ownerLabels are kube-state-metrics' labels of a pod owned by the scenario's owner.
func ownerLabels(m *model.Model, cluster string, p *synth.Pod, c model.AlertCase) synth.Labels {
	return synth.Labels{
		m.Labels.Cluster: cluster, "job": m.KubeStateMetrics.Job, "instance": "kube-state-metrics:8080",
		"namespace": p.Namespace, "pod": p.Name, "uid": "uid-" + p.Name,
		"owner_kind": ownerKind(c), "owner_name": c.Owner, "owner_is_controller": "true",
	}
}

// entitiesOf lists the entities of the GPUs for one entity level, GPU by GPU.
func entitiesOf(m *model.Model, gpus []synth.GPU, entity model.Entity) []synth.Entity {
	var out []synth.Entity
	for _, g := range gpus {
		out = append(out, g.Entities(m, entity)...)
	}
	return out
}

// selected reports whether index i is in the selection; an empty selection selects all.
func selected(selection []int, i int) bool {
	return len(selection) == 0 || slices.Contains(selection, i)
}

// firingIdentities are the label sets an alert fires with in a scenario: the target's, when
// the thing at fault is not a GPU, else the selected GPU identities.
func firingIdentities(m *model.Model, gpus []synth.GPU, c model.AlertCase, cluster string, identity []string, firing []int, target map[string]string) []synth.Labels {
	if target != nil {
		return []synth.Labels{synth.Labels{m.Labels.Cluster: cluster}.With(gpus[0].TargetPod(m)).With(atScenario(target, gpus)).Project(identity)}
	}
	var owner synth.Labels
	if c.Owner != "" {
		owner = synth.Labels{"owner_kind": ownerKind(c), "owner_name": c.Owner}
	}
	var out []synth.Labels
	for i, id := range alertIdentities(m, gpus, owner, identity) {
		if selected(firing, i) {
			out = append(out, id)
		}
	}
	return out
}

// alertIdentities are the label sets an alert with the given identity has on these GPUs, with
// the labels of the pods' owner: one per reporting entity (each MIG instance has its own pod),
// deduplicated. An alert that names no GPU (an exporter target's) carries the target's pod.
func alertIdentities(m *model.Model, gpus []synth.GPU, owner synth.Labels, identity []string) []synth.Labels {
	seen := map[string]bool{}
	var out []synth.Labels
	for _, e := range entitiesOf(m, gpus, model.EntityMIGRepeated) {
		labels := e.Labels
		if !slices.Contains(identity, m.Labels.UUID) {
			labels = labels.With(e.TargetPod(m))
		}
		id := labels.With(owner).Project(identity)
		if key := synth.Series("", id); !seen[key] {
			seen[key] = true
			out = append(out, id)
		}
	}
	return out
}

// expectedAlert renders the labels and annotations promtool must see, expanding the templates
// in both (from the series' labels and the value) with Prometheus' own template engine.
func expectedAlert(a plan.Alert, e expectation) (expAlert, error) {
	labels := map[string]string{}
	for k, v := range e.labels {
		labels[k] = v
	}
	annotations := map[string]string{}
	for key, text := range a.Annotations {
		expanded, err := promql.ExpandAlertTemplate(a.Name, text, labels, e.value)
		if err != nil {
			return expAlert{}, fmt.Errorf("alerts.%s annotation %s: %w", a.Name, key, err)
		}
		annotations[key] = expanded
	}
	for k, v := range a.Labels {
		expanded, err := promql.ExpandAlertTemplate(a.Name, v, e.labels, e.value)
		if err != nil {
			return expAlert{}, fmt.Errorf("alerts.%s label %s: %w", a.Name, k, err)
		}
		labels[k] = expanded
	}
	return expAlert{ExpLabels: labels, ExpAnnotations: annotations}, nil
}

// withCounterFile adds, beside every series of a health field of a scenario, the series of the
// counter file's first own field with the same labels (0 throughout), as an exporter with the
// generated counter file sends; nothing for a scenario on the default counter set, or one that
// sends that field itself.
func withCounterFile(m *model.Model, c model.AlertCase, in []series, steps int) []series {
	if c.StockCounters || len(m.Exporter.CounterFileFields) == 0 {
		return in
	}
	field := m.Exporter.CounterFileFields[0]
	for _, s := range c.Series {
		if s.Metric == field {
			return in
		}
	}
	out, seen := in, map[string]bool{}
	for _, s := range in {
		for _, health := range m.Exporter.HealthFields {
			labels, ok := strings.CutPrefix(s.Series, health+"{")
			if ok && !seen[labels] {
				seen[labels] = true
				out = append(out, series{Series: field + "{" + labels, Values: constant(0, steps)})
			}
		}
	}
	return out
}
