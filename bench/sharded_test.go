//go:build bench

package bench

import (
	"maps"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/gpuobs/gpuobs/generators/rules"
	"github.com/gpuobs/gpuobs/internal/catalog"
	"github.com/gpuobs/gpuobs/internal/emit"
	"github.com/gpuobs/gpuobs/internal/plan"
)

// A sharded fleet of 100,000 GPUs: 8 shards (one Prometheus per cluster) of 12,500 GPUs.
const shardCount, shardGPUsDefault = 8, 12_500

// BenchmarkShardedEvaluation measures the embedded catalog on a sharded fleet
// (topology.mode sharded): one shard's Prometheus evaluating rules/shard/ over its 12,500 GPUs
// (GPUOBS_BENCH_SHARD_GPUS), and the global layer evaluating rules/global/ over what 8 such
// shards record (the records it reads, copied per shard with the shard's cluster label, as the
// querier serves them). Each reports ms per evaluation (sequential, as the single layout's
// sequential figure) and the series it records and reads.
func BenchmarkShardedEvaluation(b *testing.B) {
	m, err := catalog.Load(catalog.Options{ConfigPath: filepath.Join("..", "internal", "testutil", "plantest", "testdata", "sharded.jsonnet")})
	if err != nil {
		b.Fatal(err)
	}
	p, err := plan.Build(m)
	if err != nil {
		b.Fatal(err)
	}
	files := ruleFiles(b, p)

	gpus := fleet(shardGPUs(b))
	for i := range gpus {
		gpus[i].Cluster = "shard-0"
	}
	shard, _, loadTime := fleetStore(b, p, gpus)
	raw := shard.SeriesCount()
	shardRules, err := shard.LoadRuleFiles(files[plan.Shard]...)
	if err != nil {
		b.Fatal(err)
	}
	if first := shardRules.Evaluate(evalAt, false); len(first.Failed) > 0 {
		b.Fatalf("shard rules failed: %v", first.Failed)
	}

	// The global layer's input: every shard record it reads, from 8 shards.
	global := openStore(b)
	inputs := 0
	for _, metric := range p.GlobalInputs() {
		samples, err := shard.Instant(metric, evalAt)
		if err != nil {
			b.Fatal(err)
		}
		for i := range shardCount {
			for _, s := range samples {
				l := maps.Clone(s.Labels)
				delete(l, "__name__")
				l[m.Topology.ShardLabel] = "shard-" + strconv.Itoa(i)
				if err := global.AddSeries(metric, l, evalAt.UnixMilli(), sampleStep, 1, func(int) float64 { return s.Value }); err != nil {
					b.Fatal(err)
				}
				inputs++
			}
		}
	}
	if err := global.Commit(); err != nil {
		b.Fatal(err)
	}
	globalRules, err := global.LoadRuleFiles(files[plan.Global]...)
	if err != nil {
		b.Fatal(err)
	}
	globalAt := evalAt.Add(time.Second)
	if first := globalRules.Evaluate(globalAt, false); len(first.Failed) > 0 {
		b.Fatalf("global rules failed: %v", first.Failed)
	}

	next := evalAt
	b.Run("shard", func(b *testing.B) {
		last := steadyState(b, shardRules, &next, false)
		b.ReportMetric(float64(len(gpus)), "GPUs")
		b.ReportMetric(float64(raw), "series")
		b.ReportMetric(float64(shard.SeriesCount()-raw), "recorded")
		// The global layer's query offset must cover it: a shard's records are written up to
		// its slowest group's duration after their timestamp (topology.globalQueryOffset).
		b.ReportMetric(float64(last.SlowestGroupDuration.Milliseconds()), "ms/slowest-group")
		b.Logf("shard of %d GPUs loaded in %s; slowest group %s (%s); slowest rules: %v", len(gpus), loadTime.Round(time.Second), last.SlowestGroup, last.SlowestGroupDuration.Round(time.Millisecond), last.Slowest)
	})
	nextGlobal := globalAt
	b.Run("global", func(b *testing.B) {
		last := steadyState(b, globalRules, &nextGlobal, false)
		b.ReportMetric(float64(shardCount*len(gpus)), "GPUs")
		b.ReportMetric(float64(inputs), "series")
		b.ReportMetric(float64(global.SeriesCount()-uint64(inputs)), "recorded")
		b.Logf("%d shards, %d shard records read; slowest rules: %v", shardCount, len(p.GlobalInputs()), last.Slowest)
	})
}

// shardGPUs is one shard's size; GPUOBS_BENCH_SHARD_GPUS overrides it.
func shardGPUs(b *testing.B) int { return envInt(b, "GPUOBS_BENCH_SHARD_GPUS", shardGPUsDefault) }

// ruleFiles writes the plan's rule files into a temporary directory and lists them by layer.
func ruleFiles(b *testing.B, p *plan.Plan) map[plan.Layer][]string {
	b.Helper()
	files, err := rules.Generate(p, nil)
	if err != nil {
		b.Fatal(err)
	}
	dir := b.TempDir()
	if err := emit.Write(dir, files, nil); err != nil {
		b.Fatal(err)
	}
	out := map[plan.Layer][]string{}
	for _, f := range p.RuleFiles() {
		out[f.Layer] = append(out[f.Layer], filepath.Join(dir, f.Path))
	}
	return out
}
