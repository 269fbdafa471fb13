// Settings every family file reads: label names, identities, windows shared by several
// families, teams, sections, where the rules run and how they are tested.
local e = import 'lib/expr.libsonnet';
local t = import 'lib/test.libsonnet';
{
  windows: {
    // How long an XID or ECC event keeps its alert firing...
    event: '10m',
    // ...and how much longer the alert stays firing after that (keep_firing_for), so that the
    // same fault repeating within an incident (a GPU that errors again after its reset) stays
    // one page instead of resolving and paging again; the alert resolves this long after the
    // last event window ends.
    incident: '30m',
    // How far back a GPU that stopped reporting is remembered.
    missing: '1h',
    // How long a gap in a GPU's data (a Prometheus restart, a scrape outage) the XID alerts
    // look past to tell an old XID from a new one; XIDs held across a longer gap are announced
    // again when the data resumes.
    gap: '30m',
    // The window of training jobs' SM activity (the straggler's, NCCL's and InfiniBand's reads
    // of who trains where).
    straggler: '10m',
  },

  thresholds: {
    // An allocated GPU is idle below this graphics-engine activity (0-1).
    idleActivity: 0.05,
  },

  // Label names as the series carry them. Derived from `exporter`; override single names here.
  labels: {
    cluster: 'cluster',
    host: $.exporter.hostLabel,
    gpu: 'gpu',
    uuid: 'UUID',
    pciBusId: 'pci_bus_id',
    device: 'device',
    modelName: 'modelName',
    driverVersion: $.exporter.driverField,
    namespace: 'namespace',
    pod: 'pod',
    container: 'container',
    // The Slurm job a GPU works for, on every series of the GPU (scheduler slurm):
    // dcgm-exporter's hpc_job (--hpc-job-mapping-dir), one copy of each series per job the
    // prolog listed for the GPU.
    job: 'hpc_job',
    // The workload's pod where a scrape's target labels won (honorLabels: false): Prometheus
    // renames the exporter's labels exported_<name>. The rules read both.
    exportedNamespace: 'exported_' + self.namespace,
    exportedPod: 'exported_' + self.pod,
    migInstance: 'GPU_I_ID',
    migProfile: 'GPU_I_PROFILE',
    // kube-state-metrics' node label.
    node: 'node',
    // The label every alert carries with its owning team (routing matches on it), and that
    // the cost records by team keep.
    team: 'team',
  },

  apiVersion: 'gpuobs/v1',

  // The Prometheus servers the rules run on: the release line they run (version: 3.5 and 3.13
  // are the long-term-support lines; 3.16 is the newest gpuobs tests with) and their
  // --enable-feature flags. A rule that uses PromQL a later release added (first_over_time
  // came in 3.7, the histogram trim operators in 3.11) or that needs a flag the release
  // requires and enableFeatures does not list (limitk and info need
  // promql-experimental-functions, fill() promql-binop-fill-modifiers, duration arithmetic
  // promql-duration-expr before 3.14) fails generation by its catalog path, and gpuobs lint
  // --prometheus-version says the same of hand-written rules.
  //
  // nativeHistograms: whether the servers keep vLLM's latency histograms as native histograms
  // (scrape_native_histograms, or convert_classic_histograms_to_nhcb without
  // always_scrape_classic_histograms): the SLOs, records, panels and runbooks then read the bare
  // name with histogram_count, histogram_fraction and histogram_quantile instead of the
  // _bucket, _count and _sum series, which such servers no longer have.
  // What hands GPUs to work: 'kubernetes' (pods, read from the exporter's pod labels and
  // kube-state-metrics) or 'slurm' (jobs, on bare metal or Slurm on Kubernetes: a GPU's job is
  // dcgm-exporter's hpc_job, never the slurmd pod's). Every section reads its inventory,
  // allocation, attribution, maintenance and owners through it: a Slurm fleet reads no
  // kube-state-metrics, and its Kubernetes sections are off (enabled.kubernetes).
  scheduler: 'kubernetes',

  // A Slurm fleet's sources (scheduler slurm; docs/catalog-guide.md, Slurm and bare metal).
  slurm: {
    // Slurm's own metrics, served by slurmctld (MetricsType=metrics/openmetrics; the GPU counts
    // from 26.05): the scrape job of its /metrics/nodes, /metrics/partitions, /metrics/jobs,
    // /metrics/jobs-users-accts and /metrics/scheduler. Its series name a node by nodeLabel.
    job: 'slurm',
    nodeLabel: 'node',
    // How a Slurm node's name becomes the exporter's host label value: a regular expression
    // on the node name and its replacement ('(.+)' and '$1': the same name; '([^.]+)' drops a
    // domain).
    hostFromNode: { regex: '(.+)', replacement: '$1' },
    // Where each node's state comes from, which Slurm's own metrics give only as counts:
    // 'sckyzo' (SckyzO/slurm_exporter: slurm_node_status{node, status, partition}, status as
    // sinfo's long state, and slurm_node_drain_reason_info{node, reason}), 'soperator' (its
    // exporter's slurm_node_info{node_name, state_base, state_is_drain, ..., reason}) or
    // 'none' (no node is in maintenance: every page stays a page). job is its scrape job.
    nodeState: { source: 'sckyzo', job: 'slurm-exporter' },
    // Where a job's user and partition come from: 'soperator' (slurm_job_info{job_id,
    // user_name, slurm_partition}) or 'none' (alerts name the job alone). No source gives the
    // account per job: Slurm's own metrics give it per account.
    jobInfo: { source: 'none', job: 'slurm-exporter' },
    // The reasons the runbooks drain a node with (scontrol update nodename=... state=drain
    // reason="..."), by who acts on them, in soperator's vocabulary: automation and people
    // read the prefix.
    drainReasons: {
      hardware: '[hardware_problem]',
      node: '[node_problem]',
      software: '[software_problem]',
      user: '[user_problem]',
    },
  },

  prometheus: { version: '3.16', enableFeatures: [], nativeHistograms: false },

  // The teams that own alerts, by their role in the catalog: the value is the team's name as
  // alerts, receivers, routes and runbooks spell it. Rename one with teams+: { infra: 'gpu-infra' }.
  teams: {
    // GPU hardware, exporters, nodes and the availability SLO.
    infra: 'infra',
    // Scheduling, workloads, cost and the serving platform.
    'ml-platform': 'ml-platform',
    // Inference SLOs and model releases.
    inference: 'inference',
  },

  // Catalog sections, all on: switch off what your fleet does not run, and every record,
  // alert, SLO, panel, runbook, test and counter row of the section goes (a rule of another
  // section that reads one fails generation, naming both). inference: the serving engines'
  // latency and request-error SLOs, the shedding, queue and KV-cache alerts
  // (inference.engines) and L4's serving panels; vllm: the rules on vLLM's own metrics
  // (throughput, the latency breakdown, goodput, metric names), on with inference where
  // inference.engines lists vllm;
  // release: canary
  // against baseline (on every served engine's first tokens and errors); cost: prices, chargeback and idle cost; cohorts:
  // driver and SKU cohorts; retention: the 5m and 1h copies for a long-term store;
  // scheduling: unschedulable GPU pods, quotas, device plugin; infiniband (off unless switched
  // on): InfiniBand and RoCE ports from node_exporter under multi-node training jobs; nccl
  // (off unless switched on): NCCL Inspector's measured stragglers and starved collectives.
  enabled: {
    // Kubernetes' own sections and entries: on where scheduler is kubernetes, and switched
    // off with it on a Slurm fleet (kube-state-metrics is read nowhere then).
    kubernetes: $.scheduler == 'kubernetes',
    // Slurm's: its inventory, drain, jobs and chargeback (scheduler slurm).
    slurm: $.scheduler == 'slurm',
    inference: true,
    vllm: self.inference && std.member($.inference.engines, 'vllm'),
    release: true,
    cost: true,
    cohorts: true,
    retention: true,
    scheduling: self.kubernetes,
    infiniband: false,
    nccl: false,
  },

  // runbook_url of an alert is this base + the alert name + '.md'.
  // grafanaURL is where the generated dashboards are served: runbooks link into it.
  runbooks: {
    baseURL: 'https://github.com/gpuobs/gpuobs/blob/main/runbooks/',
    grafanaURL: 'https://grafana.example.com',
  },

  // Label sets used to aggregate. gpu: one series per physical GPU (recording rules);
  // alert: what every GPU alert keeps; gpuJoin: labels that match a GPU across both.
  identity: {
    local l = $.labels,
    gpu: [l.cluster, l.host, l.gpu, l.uuid, l.modelName],
    gpuJoin: [l.cluster, l.host, l.gpu, l.uuid],
    // The labels that name the workload holding a GPU: its pod on Kubernetes, its job on Slurm.
    workload: if $.scheduler == 'slurm' then [l.job] else [l.namespace, l.pod],
    alert: [l.cluster, l.host, l.gpu, l.uuid, l.pciBusId, l.modelName] + self.workload,
  },

  // Recording rules declared in the catalog (name: { family, expr }), for expressions several
  // alerts share. Each must be read by an alert, whose scenarios then test it.
  records+: {},

  // Recording rule evaluation.
  recording: {
    interval: '1m',
    rateWindow: '5m',
    // Retention tiers: the records of these levels (the L1 and L2 signals, cost and SLO
    // budgets) copied at 5m and 1h resolution, in their own slower groups; a long-term store
    // keeps only these (README: "Retention tiers").
    retention: {
      intervals: ['5m', '1h'],
      levels: ['fleet', 'cluster', 'namespace', 'team', 'slo'],
    },
    // Sections whose records and alerts run in groups of their own, at a slower interval:
    // section: interval (nccl sets its own, in nccl/inspector.libsonnet).
    sectionIntervals: {},
  },

  // Where the rules run. single: one Prometheus (or one engine) sees every series, the cluster
  // label on them; rules in rules/*.yaml. sharded: one Prometheus per shard, shardLabel its
  // external label (so not on the scraped series), and a global engine above the shards
  // (thanos: Thanos ruler over a querier; mimir: Mimir ruler over what the shards remote-write).
  // Each rule is placed by what it reads: rules that keep shardLabel and read raw series run in
  // the shard (rules/shard/), rules that aggregate across shards or read their results run in
  // the global layer (rules/global/), which never reads raw series.
  topology: {
    mode: 'single',
    shardLabel: $.labels.cluster,
    globalEngine: 'thanos',
    // The query_offset of the global layer's groups: they read as of this long before their
    // evaluation time, when every shard's records for it have arrived. A shard writes a
    // group's records up to the group's duration after their timestamp (its slowest group
    // took 3.2 s at 12,500 GPUs, BenchmarkShardedEvaluation/shard), and remote write sends
    // them within its batch_send_deadline (5s by default): 30s covers the two 3.6 times over.
    // '0s' reads at the evaluation time.
    globalQueryOffset: '30s',
    // true where each cluster's Prometheus names its cluster only as an external label
    // (kube-prometheus-stack's prometheusSpec.externalLabels, no relabeling that puts it on
    // the series): the label self-check then does not ask for it on GPU series, alert texts
    // read it from the external labels, and runbook queries select no cluster (run them in
    // that cluster's Prometheus). Alertmanager gets it on every alert either way: Prometheus
    // adds its external labels to the alerts it sends.
    clusterExternal: false,
  },

  // Rule file formats besides plain files (gpuobs generate --rules-format operator,mimir).
  deploy: {
    // A Prometheus Operator PrometheusRule; the labels must match your Prometheus'
    // ruleSelector (kube-prometheus-stack selects release: <its release name>).
    operator: { name: 'gpuobs', namespace: 'monitoring', labels: { 'app.kubernetes.io/managed-by': 'gpuobs' } },
    // The Mimir/Cortex ruler namespace (mimirtool rules load).
    mimir: { namespace: 'gpuobs' },
    // Grafana: uidPrefix starts every dashboard UID and tags the dashboards that link to each
    // other (a second install in one organization takes another prefix); editable lets users
    // change them in Grafana (provisioning overwrites such edits); sidecar also writes each
    // dashboard as a ConfigMap for Grafana's sidecar (grafana/<level>.yaml); schemas are the
    // dashboard schemas written: 'classic' (dashboards/<level>.json, the dashboard JSON of
    // file provisioning, the sidecar and the HTTP API) and 'v2' (dashboards/v2/<level>.json,
    // the dashboard.grafana.app/v2 resource of Grafana 13's API, Git Sync and grafana-operator).
    grafana: {
      uidPrefix: 'gpuobs',
      editable: false,
      schemas: ['classic'],
      sidecar: { enabled: false, namespace: 'monitoring', labels: { grafana_dashboard: '1' } },
    },
  },

  // promtool scenarios: every case runs in one test group and is checked at evalTime.
  tests: {
    interval: '1m',
    evalTime: '60m',
  },

  // How GPUs are shared, for capacity, availability, cost and the namespace rollups.
  sharing: {
    // The share of its GPU a MIG instance stands for, by GPU_I_PROFILE: compute slices over the
    // GPU's (7 on A100, H100, H200 and B200; 4 on A30), so a 3g+2g+1g+1g layout prices 3/7,
    // 2/7, 1/7 and 1/7. Memory-only variants (+me, .gfx) weigh as their base profile.
    local sevenSlice = ['1g.5gb', '2g.10gb', '3g.20gb', '4g.20gb', '7g.40gb', '1g.10gb', '1g.20gb', '2g.20gb', '3g.40gb', '4g.40gb', '7g.80gb', '1g.12gb', '1g.24gb', '2g.24gb', '3g.47gb', '4g.47gb', '7g.94gb', '1g.18gb', '1g.35gb', '2g.35gb', '3g.71gb', '4g.71gb', '7g.141gb', '1g.23gb', '1g.45gb', '2g.45gb', '3g.90gb', '4g.90gb', '7g.180gb'],
    local fourSlice = ['1g.6gb', '2g.12gb', '4g.24gb'],
    local slices(p) = std.parseInt(std.split(p, 'g')[0]),
    migProfileWeights: { [p]: slices(p) / 7 for p in sevenSlice } + { [p]: slices(p) / 4 for p in fourSlice },
    // Time-slicing or MPS: the devices the NVIDIA device plugin advertises per GPU (its
    // sharing config's replicas; 1 without sharing, the GPU Operator's default). Capacity then
    // counts replicas, and so does availability.
    replicas: 1,
  },

  // The controller kinds that run training: a straggler is one of their ranks. Inference
  // replicas (a Deployment's ReplicaSet, a StatefulSet) serve unevenly by design.
  training:: {
    ownerKinds: ['Job', 'PyTorchJob', 'TFJob', 'MPIJob', 'JobSet', 'RayJob', 'XGBoostJob', 'PaddleJob', 'LeaderWorkerSet'],
    // The kind of controller the generated scenarios give a training job's pods: the first of
    // ownerKinds, so that they hold on a catalog that counts other kinds.
    scenarioKind:: self.ownerKinds[0],
    // The pods a training controller owns (kube-state-metrics' kube_pod_owner), under the
    // exporter's pod labels: owner_kind and owner_name name the job.
    owners:: e.asExporterPod($.labels, e.fill(|||
      kube_pod_owner{job="$(job)", owner_is_controller="true", owner_kind=~"$(kinds)", owner_name!="<none>"}
    |||, { job: $.kubeStateMetrics.job, kinds: std.join('|', $.training.ownerKinds) })),
    // The labels that name a training job on its GPUs' records: its controller (namespace,
    // kind and name) on Kubernetes, its job on Slurm; and the job in alert text.
    local slurm = $.scheduler == 'slurm',
    local l = $.labels,
    jobLabels:: if slurm then [l.job] else [l.namespace, 'owner_kind', 'owner_name'],
    jobText:: if slurm then 'job {{ $labels.' + l.job + ' }}' else '{{ $labels.owner_kind }} {{ $labels.' + l.namespace + ' }}/{{ $labels.owner_name }}',
    // A scenario's GPU of the training job name: the labels that put it in the job (a pod of
    // it, or the job's hpc_job), and the series that say the pod is the job's (none on Slurm).
    scenarioWorker(name, pod):: if slurm then { [l.job]: name } else { [l.namespace]: 'ml-team', [l.pod]: pod, [l.container]: 'main' },
    scenarioOwnerSeries(name, pod):: if slurm then [] else [t.series('kube_pod_owner', '1x60', e.ksm($.kubeStateMetrics.job, {
      namespace: 'ml-team',
      pod: pod,
      uid: 'uid-' + pod,
      owner_kind: $.training.scenarioKind,
      owner_name: name,
      owner_is_controller: 'true',
    }))],
  },
}
