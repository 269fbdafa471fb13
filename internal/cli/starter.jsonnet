// gpuobs.jsonnet: your GPU observability catalog.
//
// It starts from the catalog embedded in gpuobs and overrides it mixin-style: `field+:`
// merges into the default, `field:` replaces it. Generate with:
//   gpuobs generate -c gpuobs.jsonnet -o .
local gpuobs = import 'gpuobs.libsonnet';

gpuobs {
  exporter+: {
    // Your dcgm-exporter version: 4.8.2 (and older), 4.8.3 (host label 'hostname'), 4.9
    // (also a new driver-version label, the clock-event bitmask's new name, and Hz, J,
    // ratios and bytes for eleven fields) or 4.10 (the PCIe and NVLink byte rates renamed
    // ..._BYTES_PER_SECOND). Every generated file follows it. `gpuobs init --from-scrape
    // node.prom` writes a catalog that matches a saved scrape of your exporter.
    // version: '4.8.3',

    // The job Prometheus gives the exporter's targets: nvidia-dcgm-exporter under the GPU
    // Operator's ServiceMonitor.
    // job: 'nvidia-dcgm-exporter',

    // A cloud runs the exporter for you: 'gke' (GKE's managed DCGM metrics) or 'aks' (AKS'
    // managed GPU metrics); no counter file of yours, and generate names the alerts its
    // field set leaves blind.
    // managed: 'gke',

    // Grace Blackwell NVL72 racks in the fleet (alone or beside HGX nodes): the NVLink
    // fabric, NVLink-C2C and NVLink 5 fields join the counter file, with their alerts and an
    // L3 row.
    // platform: 'gb200',

    // Newer counter files name the clock-event bitmask DCGM_FI_DEV_CLOCKS_EVENT_REASONS.
    // throttleReasonsField: 'DCGM_FI_DEV_CLOCKS_EVENT_REASONS',
  },

  labels+: {
    // The label that names the cluster (set by relabeling or external labels). Every label
    // the series carry can be renamed here (host, gpu, uuid, modelName, namespace, pod, ...),
    // and team, the label alerts carry for routing.
    // cluster: 'k8s_cluster',
    // team: 'owner',
  },

  // Each cluster's Prometheus names its cluster only as an external label (no relabeling
  // puts it on the series; kube-prometheus-stack's usual setup).
  // topology+: { clusterExternal: true },

  teams+: {
    // Your teams' names: alerts, receivers (<team>-pager, <team>-ticket), routes and runbooks
    // follow.
    // infra: 'gpu-infra',
    // 'ml-platform': 'ml-platform',
    // inference: 'llm-serving',
  },

  runbooks+: {
    // runbook_url = baseURL + AlertName + '.md'
    // baseURL: 'https://runbooks.example.com/gpu/',
    // Where the gpuobs dashboards are served; runbooks link into it.
    // grafanaURL: 'https://grafana.example.com',
  },

  thresholds+: {
    // gpuTemperatureCelsius: 87,
    // eccSingleBitPerHour: 50,
    // idleActivity: 0.1,
    // e2eLatencySeconds: 40,
  },

  slos+: {
    // Tighten an objective, or hand an SLO to another team:
    // InferenceTTFT+: { objective: 0.995, team: 'llm-serving' },
    // Different windows for one SLO (each tier: alert suffix, factor, long and short window):
    // GPUAvailability+: { tiers: [{ alert: 'FastBurn', factor: 14.4, long: '1h', short: '5m' }] },
  },

  prometheus+: {
    // Your Prometheus servers' --enable-feature flags (limitk and info need
    // promql-experimental-functions), and whether they keep vLLM's histograms as native
    // histograms (scrape_native_histograms, or convert_classic_histograms_to_nhcb without the
    // classic series): every latency SLO, record, panel and runbook then reads the bare name.
    // enableFeatures: ['promql-experimental-functions'],
    // nativeHistograms: true,
  },

  deploy+: {
    // Also write each dashboard as a Grafana 13 dashboard.grafana.app/v2 resource
    // (dashboards/v2/), for the API, Git Sync or grafana-operator:
    // grafana+: { schemas: ['classic', 'v2'] },
  },

  // Catalog sections: switch off what your fleet does not run, on what it does (infiniband:
  // node_exporter's InfiniBand and RoCE ports; nccl: NCCL Inspector's files):
  // enabled+: { cost: false, infiniband: true, nccl: true },
  // The engines you serve with (vllm, sglang, dynamo, trtllm, triton; docs/catalog.md lists
  // what each feeds). Every latency threshold must be a bound of each served engine's ladder
  // (thresholds above: SGLang's end-to-end ladder has 20 and 40, not 30):
  // inference+:: { engines: ['vllm', 'sglang'] },
  // The vLLM metric names, for older releases:
  // inference+:: { kvCacheUsage: 'vllm:gpu_cache_usage_perc' },

  cost+: {
    // Your price per GPU-hour, by the exporter's modelName:
    // gpuHourly+: { 'NVIDIA H100 80GB HBM3': 2.1 },
  },

  release+: {
    // The label that tells canary from baseline series:
    // label: 'rollout_track', canary: 'canary', baseline: 'stable',
  },

  alerts+: {
    // Tune one alert:
    // GPUTemperatureHigh+: { 'for': '30m' },
    // Route one to another team:
    // GPUPowerThrottling+: { team: 'ml-platform' },
  },

  // How Kubernetes hands GPUs to pods: 'device-plugin' (nvidia.com/gpu), 'dra' (ResourceClaims
  // through NVIDIA's DRA driver) or 'mixed' (node pools of both).
  kubernetes+: {
    // gpuAllocation: 'dra',
  },

  // XID codes as NVIDIA's XID catalog classes them (name, action); the alert tiers follow the
  // action, a code's class overrides it.
  xidCatalog+: {
    // Page on NVLink XIDs too:
    // '74'+: { class: 'fatal' },
  },

  // The driver's recovery actions (DCGM field 1523, dcgm-exporter 4.8.3 and later): the tier
  // each one alerts at.
  recoveryActions+: {
    // Page on a pending GPU reset too:
    // '1'+: { severity: 'critical' },
  },

  // gpuobs lint: the fleet projections are made for (100,000 GPUs by default; the cardinality
  // messages say which fleet they used), and what your Prometheus has besides DCGM fields.
  fleet+: {
    // clusters: 4, nodesPerCluster: 250, gpusPerNode: 8,
  },

  metrics+: {
    // A metric your rules read, with its type and labels:
    // node_gpu_power_watts: { type: 'gauge', labels: ['cluster', 'instance', 'gpu'] },
  },

  lint+: {
    // Your own conventions, checked in rule files gpuobs did not generate (its own output
    // keeps gpuobs' conventions); empty entries check nothing:
    // policy+: { severities: ['critical', 'warning', 'info', 'none'], annotations: ['summary', 'runbook_url'] },
    // Skip a check everywhere, or for some files (paths relative to this file):
    // disable+: ['cardinality/budget'],
    // ignore+: [{ check: 'promql/mig-double-count', path: 'legacy/*.yaml' }],
  },
}
