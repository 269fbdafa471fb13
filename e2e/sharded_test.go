//go:build e2e

package e2e

import (
	"fmt"
	"net/http/httptest"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/gpuobs/gpuobs/internal/plan"
	"github.com/gpuobs/gpuobs/internal/promql"
	"github.com/gpuobs/gpuobs/internal/testutil/plantest"
)

// shard is one cluster's Prometheus, its exporter and its Thanos sidecar.
type shard struct {
	name       string
	exp        *exporter
	prometheus string // HTTP base URL
	sidecar    string // gRPC address
}

// TestShardedEndToEnd runs the sharded output as a fleet of two clusters runs it: each
// cluster's Prometheus (cluster its external label, not on the scraped series) evaluates
// rules/shard/, a Thanos sidecar serves it, a Thanos querier sees both, and a Thanos ruler
// evaluates rules/global/ through the querier and sends its alerts to the same Alertmanager.
func TestShardedEndToEnd(t *testing.T) {
	ctx := begin(t)
	prometheusBin, thanosBin := binary(t, "GPUOBS_PROMETHEUS"), binary(t, "GPUOBS_THANOS")

	p := plantest.Plan(t, "testdata/e2e-sharded.jsonnet")
	m := p.Model
	dir := generate(t, p)
	am, hook := startAlertmanager(t, ctx, dir, m)
	files := map[plan.Layer][]string{}
	for _, f := range p.RuleFiles() {
		files[f.Layer] = append(files[f.Layer], filepath.Join(dir, f.Path))
	}

	// Each cluster's Prometheus first: a sidecar waits for its Prometheus before it serves.
	var shards []*shard
	for i, name := range []string{"cluster-a", "cluster-b"} {
		s := &shard{name: name, exp: newExporter(m, name, "gpu-node-"+name[len(name)-1:], 100*(i+1))}
		server := httptest.NewServer(s.exp)
		t.Cleanup(server.Close)
		addr := freeAddr(t)
		config := filepath.Join(dir, name+".yml")
		writeYAML(t, config, prometheusConfig(m, am, server.URL, nil, map[string]string{m.Topology.ShardLabel: name}, files[plan.Shard]...))
		start(t, ctx, dir, "prometheus-"+name, prometheusBin,
			"--config.file="+config, "--storage.tsdb.path="+filepath.Join(dir, name+"-data"), "--web.listen-address="+addr)
		s.prometheus, s.sidecar = "http://"+addr, freeAddr(t)
		shards = append(shards, s)
	}
	ready(t, ctx, shards[0].prometheus, shards[1].prometheus, "http://"+am)
	for _, s := range shards {
		start(t, ctx, dir, "sidecar-"+s.name, thanosBin, "sidecar",
			"--prometheus.url="+s.prometheus, "--tsdb.path="+filepath.Join(dir, s.name+"-data"),
			"--grpc-address="+s.sidecar, "--http-address="+freeAddr(t))
	}
	// The ruler before the querier, which waits for every endpoint it is given.
	querier, rulerGRPC, rulerHTTP := freeAddr(t), freeAddr(t), freeAddr(t)
	ruler := []string{"rule",
		"--data-dir=" + filepath.Join(dir, "ruler-data"), "--eval-interval=1s",
		"--query=" + querier, "--alertmanagers.url=http://" + am,
		"--grpc-address=" + rulerGRPC, "--http-address=" + rulerHTTP,
		// The ruler's own external label: it must not be the shard label, or every global
		// record would claim a cluster.
		"--label=ruler=\"global\""}
	for _, f := range files[plan.Global] {
		ruler = append(ruler, "--rule-file="+f)
	}
	start(t, ctx, dir, "ruler", thanosBin, ruler...)
	start(t, ctx, dir, "querier", thanosBin, "query",
		"--http-address="+querier, "--grpc-address="+freeAddr(t),
		"--endpoint="+shards[0].sidecar, "--endpoint="+shards[1].sidecar, "--endpoint="+rulerGRPC)
	ready(t, ctx, "http://"+rulerHTTP, "http://"+querier)

	q := "http://" + querier
	eventually(t, ctx, "the querier sees eight GPUs, four per cluster, cluster from the external labels", func() error {
		got, err := query(q, "count by ("+m.Labels.Cluster+") ("+m.Exporter.HealthFields[0]+")")
		if err != nil {
			return err
		}
		if len(got) != 2 || got[0].value != 4 || got[1].value != 4 {
			return fmt.Errorf("%v", got)
		}
		return nil
	})

	// The fleet rollups, recorded by the ruler, equal the sum of the shards' cluster records.
	fleetRecords := []string{"fleet:dcgm_gpus_reporting:count", "fleet:dcgm_power_usage:sum"}
	eventually(t, ctx, "the ruler's fleet records equal the sum over both clusters' records", func() error {
		for _, r := range fleetRecords {
			if p.Layers[r] != plan.Global {
				return fmt.Errorf("%s is not a global record", r)
			}
			clusterRecord := "cluster:" + strings.SplitN(r, ":", 2)[1]
			fleet, err := query(q, r)
			if err != nil {
				return err
			}
			clusters, err := query(q, "sum("+clusterRecord+")")
			if err != nil {
				return err
			}
			perCluster, err := query(q, "count("+clusterRecord+")")
			if err != nil {
				return err
			}
			if len(fleet) != 1 || len(clusters) != 1 || len(perCluster) != 1 || perCluster[0].value != 2 || fleet[0].value != clusters[0].value {
				return fmt.Errorf("%s %v, sum of %s %v over %v clusters", r, fleet, clusterRecord, clusters, perCluster)
			}
			// Eight GPUs; each cluster's draw 300 + 310 + 320 + 330 W.
			if want := map[string]float64{"fleet:dcgm_gpus_reporting:count": 8, "fleet:dcgm_power_usage:sum": 2 * 1260}[r]; fleet[0].value != want {
				return fmt.Errorf("%s = %v, want %v", r, fleet[0].value, want)
			}
		}
		return nil
	})

	// An alert of both layers: GPU 2 of cluster A runs hot against its SKU's fleet average (a
	// global record over both shards' records), read through the querier.
	hot := shards[0]
	fleetTemp := "fleet_sku_load:dcgm_gpu_temp:avg"
	before, err := query(q, "sum("+fleetTemp+")")
	if err != nil || len(before) != 1 {
		t.Fatalf("%s: %v %v", fleetTemp, before, err)
	}
	t.Logf("inject: GPU 2 of %s at 75 °C, its seven peers at 45 °C", hot.name)
	injected := time.Now()
	hot.exp.inject(func() { hot.exp.temp[2] = 75 })
	// The ruler reads the shards topology.globalQueryOffset behind: the fleet average takes
	// the new temperature no sooner than that after it is scraped.
	offset, err := promql.ParseDuration(m.Topology.GlobalQueryOffset)
	if err != nil {
		t.Fatal(err)
	}
	eventually(t, ctx, "the fleet average takes the hot GPU, the query offset after it is scraped", func() error {
		now, err := query(q, "sum("+fleetTemp+")")
		if err != nil || len(now) != 1 || now[0].value == before[0].value {
			return fmt.Errorf("%s still %v (%v)", fleetTemp, now, err)
		}
		lag := time.Since(injected)
		t.Logf("the global layer saw the change %s after it, with a query offset of %s", lag.Round(100*time.Millisecond), offset)
		if lag < time.Duration(offset) {
			t.Errorf("the fleet average changed %s after the injection, sooner than the query offset %s: the ruler does not read behind", lag, offset)
		}
		return nil
	})
	eventually(t, ctx, "the ruler fires GPUHotterThanFleetPeers once, on GPU 2 of cluster A", func() error {
		if p.Layers["GPUHotterThanFleetPeers"] != plan.Global {
			return fmt.Errorf("GPUHotterThanFleetPeers is not a global alert")
		}
		if got := firing(t, "http://"+rulerHTTP+"/api/v1/alerts", "GPUHotterThanFleetPeers"); !slices.Equal(got, []string{"GPUHotterThanFleetPeers/2"}) {
			return fmt.Errorf("ruler fires %v", got)
		}
		return nil
	})
	ticket := m.Alertmanager.Receivers["infra"]["warning"]
	eventually(t, ctx, "the infra ticket receiver gets it with cluster A's labels and the temperature above the fleet average", func() error {
		for _, n := range hook.to(ticket) {
			for _, a := range n.Alerts {
				if a.Labels["alertname"] != "GPUHotterThanFleetPeers" {
					continue
				}
				// 75 against (75 + 7 × 45) / 8 = 48.75: 26 °C above.
				if a.Labels[m.Labels.Cluster] != hot.name || a.Labels["gpu"] != "2" || !strings.Contains(a.Annotations["description"], "runs 26 °C above") {
					return fmt.Errorf("got %v %v", a.Labels, a.Annotations["description"])
				}
				return nil
			}
		}
		return fmt.Errorf("delivered %v", hook.delivered(ticket))
	})
	if got := amAlertsNamed(t, am, "GPUHotterThanFleetPeers"); len(got) != 1 {
		t.Errorf("Alertmanager holds %d GPUHotterThanFleetPeers alerts, want one: %v", len(got), got)
	}

	// A shard's own alert carries its cluster from the external labels, in its labels and in
	// its text: cluster B's GPU 3 runs another driver.
	b := shards[1]
	t.Logf("inject: GPU 3 of %s on another driver", b.name)
	b.exp.inject(func() { b.exp.gpus[3].Driver = "535.183.01" })
	eventually(t, ctx, "GPUDriverVersionSkew reaches Alertmanager from cluster B's Prometheus, its text naming cluster B", func() error {
		got := amAlertsNamed(t, am, "GPUDriverVersionSkew")
		if len(got) != 1 || got[0].Labels[m.Labels.Cluster] != b.name || !strings.Contains(got[0].Annotations["description"], "Cluster "+b.name+" runs 2 NVIDIA driver versions") {
			return fmt.Errorf("Alertmanager has %v", got)
		}
		return nil
	})

	// The faults of make e2e, in cluster B: the same alerts, routing and inhibition.
	faults(t, ctx, m, b.exp, b.prometheus, am, hook)
}
