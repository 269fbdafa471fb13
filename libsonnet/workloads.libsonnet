// Workloads: allocated-but-idle GPUs, capacity, training stragglers, inference saturation,
// memory exhaustion, and fleet hygiene (driver skew, flaky exporters), plus the canary-versus-
// baseline rules a release gate queries.
local e = import 'lib/expr.libsonnet';
local names = import 'lib/names.libsonnet';
local rb = import 'lib/runbook.libsonnet';
local t = import 'lib/test.libsonnet';
{
  thresholds+: {
    // An allocated GPU is idle below this graphics-engine activity (0-1).
    idleActivity: 0.05,
    // Capacity ticket above this share of allocatable GPUs requested by pods.
    clusterAllocationRatio: 0.95,
    // A straggler runs below this share of its workload's median SM activity...
    stragglerRatio: 0.5,
    // ...while the median itself stays above this (the workload is busy, not idle).
    stragglerBusyActivity: 0.4,
    // KV-cache usage (0-1) above which preemptions mean the cache is too small.
    kvCacheUsageRatio: 0.9,
    // Requests waiting in a vLLM queue that count as a backlog when they keep growing.
    inferenceQueueDepth: 10,
    // How far ahead memory growth is projected.
    memoryForecastHours: 4,
    // A GPU is busy but not working (a hung collective: NCCL ranks spinning on each other)
    // when its graphics engine is this active (0-1)...
    hungEngineActivity: 0.9,
    // ...while its SMs are below this activity...
    hungSMActivity: 0.2,
    // ...and its memory interface below this. (Tensor pipes and power fall with them; each
    // further signal is another read of every GPU's series at every evaluation.)
    hungDRAMActivity: 0.05,
    // Share of failed exporter scrapes that is a problem even while the target is up.
    scrapeFailureRatio: 0.1,
  },

  windows+: {
    idle: '30m',
    hung: '20m',
    straggler: '10m',
    memoryTrend: '1h',
    scrapeFailures: '30m',
  },

  // vLLM's metric names (label model_name); older releases call the KV-cache gauge
  // vllm:gpu_cache_usage_perc. `requests` is the HTTP request counter of vLLM's API server
  // (prometheus-fastapi-instrumentator: handler, method, status as 2xx/4xx/5xx).
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
  },

  inference:: {
    kvCacheUsage: 'vllm:kv_cache_usage_perc',
    // The KV-cache gauge's name before vLLM 0.10 (removed in 0.12), read only where a server
    // does not export kvCacheUsage: a fleet upgrading vLLM server by server has both.
    kvCacheUsageDeprecated: 'vllm:gpu_cache_usage_perc',
    local inference = self,
    // The KV-cache usage, over a range function (`avg_over_time(%s[10m])`, or '%s' for the
    // instant value; or a function of the series' name), under the current name or else the
    // deprecated one.
    kvCache(f='%s')::
      local apply(name) = if std.isFunction(f) then f(name) else f % name;
      e.fill('($(current) or $(deprecated))', { current: apply(inference.kvCacheUsage), deprecated: apply(inference.kvCacheUsageDeprecated) }),
    waiting: 'vllm:num_requests_waiting',
    // vLLM 0.20 and later split the waiting count by reason: capacity (queued for room in the
    // running batch, preempted requests included) and deferred (parked by the scheduler: a
    // structured-output grammar, remote KV, a LoRA slot). A backlog is the capacity queue
    // where this series exists, the whole count otherwise.
    waitingByReason: 'vllm:num_requests_waiting_by_reason',
    // vLLM's sleep mode (0.11.1 and later): one series per state (awake, weights_offloaded,
    // discard_all), 1 on the engine's current one. An engine whose awake series is 0 sleeps
    // (or has paused scheduling): it holds its GPU idle, accepts requests without serving them
    // and keeps its last KV-cache reading, by design. asleep is that condition, per server and
    // engine; awake(series) keeps the series of engines that do not sleep.
    sleepState: 'vllm:engine_sleep_state',
    asleep(by=inference.engineLabels):: e.fill(|||
      max by ($(by)) ($(state){sleep_state="awake"}) == 0
    |||, { by: std.join(', ', by), state: inference.sleepState }),
    awake(series):: e.fill('($(series) unless on ($(engine)) ($(asleep)))', { series: series, engine: std.join(', ', inference.engineLabels), asleep: inference.asleep() }),
    // The labels that name one engine of a server: data-parallel vLLM runs several per pod.
    engineLabels: [$.labels.cluster, 'namespace', 'pod', 'engine'],
    running: 'vllm:num_requests_running',
    // The inter-token latency histogram's only name before vLLM 0.11 (deprecated in 0.11,
    // hidden in 0.12, removed since; the same observations and buckets), read only where a
    // server does not export interTokenLatency: by the TPOT SLO and goodput.
    interTokenLatencyDeprecated: 'vllm:time_per_output_token_seconds',
    // The label that names the model a server serves (vLLM, SGLang and TensorRT-LLM:
    // model_name; NVIDIA Dynamo's frontend and Triton: model).
    modelLabel: 'model_name',
    preemptions: 'vllm:num_preemptions_total',
    ttft: 'vllm:time_to_first_token_seconds',
    e2eLatency: 'vllm:e2e_request_latency_seconds',
    requests: 'http_requests_total',
    // Handlers that serve inference.
    handlers: '/v1/completions|/v1/chat/completions',
    // What an inference alert keeps.
    identity: [$.labels.cluster, 'namespace', 'pod', inference.modelLabel],
    // vLLM's bucket ladders (vllm/v1/metrics/buckets.py; the same lists inline in
    // vllm/v1/metrics/loggers.py before): a latency threshold read from the classic buckets
    // must be one of its histogram's bounds, or the selector reads nothing.
    buckets: {
      timeToFirstToken: [0.001, 0.005, 0.01, 0.02, 0.04, 0.06, 0.08, 0.1, 0.25, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80, 160, 640, 2560],
      interTokenLatency: [0.01, 0.025, 0.05, 0.075, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5, 0.75, 1, 2.5, 5, 7.5, 10, 20, 40, 80],
      // Shared by the end-to-end, queue, prefill, decode and inference times.
      requestLatency: [0.3, 0.5, 0.8, 1, 1.5, 2, 2.5, 5, 10, 15, 20, 30, 40, 50, 60, 120, 240, 480, 960, 1920, 7680],
    },
  },

  // The deployment label that tells a canary's series from the baseline's, for release gates.
  release: {
    label: 'track',
    canary: 'canary',
    baseline: 'stable',
  },

  // The metrics beyond DCGM fields that these rules read, for gpuobs lint.
  metrics+: {
    local server = [$.labels.cluster, 'job', 'instance', 'namespace', 'pod', $.inference.modelLabel, $.release.label],
    local vllm = { section: 'vllm' },
    [$.inference.kvCacheUsage]: vllm { type: 'gauge', labels: server },
    [$.inference.kvCacheUsageDeprecated]: vllm { type: 'gauge', labels: server },
    [$.inference.waiting]: vllm { type: 'gauge', labels: server },
    [$.inference.waitingByReason]: vllm { type: 'gauge', labels: server + ['engine', 'reason'] },
    [$.inference.sleepState]: vllm { type: 'gauge', labels: server + ['engine', 'sleep_state'] },
    [$.inference.running]: vllm { type: 'gauge', labels: server },
    [$.inference.preemptions]: vllm { type: 'counter', labels: server },
    [$.inference.requests]: vllm { type: 'counter', labels: server + ['handler', 'method', 'status'] },
    kube_namespace_labels: { section: 'cost', type: 'gauge', labels: [$.labels.cluster, 'job', 'instance', 'namespace', $.cost.teamLabel] },
  },

  local l = $.labels,
  local th = $.thresholds,
  local w = $.windows,
  local inf = $.inference,
  // vLLM's sleep mode leaves its GPU idle by design, where the fleet serves with vLLM.
  local vllmServed = $.enabled.inference && std.get($.enabled, 'vllm', false),
  local owner = ['owner_kind', 'owner_name'],
  local workload = [l.cluster, l.namespace] + owner,
  local stragglerRecord = names.trainingActivity(w.straggler),
  local ksmJob = $.kubeStateMetrics.job,
  local gpuResource = $.kubeStateMetrics.gpuResource,

  records+: {
    // Per-GPU SM activity of pods that a training controller (training.ownerKinds) owns,
    // labelled with the owner: the siblings a straggler is compared with. Whole GPUs only.
    [stragglerRecord]: {
      family: 'workload',
      expr: e.fill(|||
        max by ($(gpu)) (
            $(activity)
          * on ($(pod)) group_left ($(owner))
            max by ($(pod), $(owner)) ($(owners))
        )
      |||, {
        gpu: std.join(', ', $.identity.alert + owner),
        activity: $.exporter.workload(e.fill('avg_over_time(DCGM_FI_PROF_SM_ACTIVE{$(namespace)!="", $(mig)=""}[$(window)])', { namespace: l.namespace, mig: l.migInstance, window: w.straggler })),
        pod: std.join(', ', [l.cluster, l.namespace, l.pod]),
        owner: std.join(', ', owner),
        owners: $.training.owners,
      }),
    },
  },

  alerts+: {
    local id = std.join(', ', $.identity.alert),
    local gpuText = 'GPU {{ $labels.' + l.gpu + ' }} ({{ $labels.' + l.uuid + ' }}) on {{ $labels.' + l.host + ' }}',
    local podText = 'pod {{ $labels.' + l.namespace + ' }}/{{ $labels.' + l.pod + ' }}',
    local mlp = { team: $.teams['ml-platform'] },
    local activity = 'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
    // Runbook parts; the steps alerts of several families share come from lib/runbook.libsonnet.
    local q = rb.query,
    local step = rb.step,
    local is = rb.is,
    local gpuSel = rb.sel([l.cluster, l.host, l.uuid]),
    local podSel = rb.sel([l.cluster, l.namespace, l.pod]),

    GPUAllocatedIdle: mlp {
      family: 'utilization',
      severity: 'warning',
      // Graphics-engine activity is reported per MIG instance (GPU_UTIL is not), so an idle
      // instance is found even when its neighbours are busy.
      // A pod whose vLLM engines all sleep (inference.sleepState) holds its GPU idle by design.
      // vLLM's series name the pod namespace and pod, as the scrape target gives them.
      local asleep = inf.asleep([l.cluster, 'namespace', 'pod']),
      local sleepingPods = if [l.namespace, l.pod] == ['namespace', 'pod'] then asleep else e.fill(|||
        label_replace(label_replace($(asleep), "$(namespace)", "$1", "namespace", "(.*)"), "$(pod)", "$1", "pod", "(.*)")
      |||, { asleep: asleep, namespace: l.namespace, pod: l.pod }),
      local sleeping = if !vllmServed then '' else e.fill(|||
        unless on ($(cluster), $(namespace), $(pod)) ($(pods))
      |||, { cluster: l.cluster, namespace: l.namespace, pod: l.pod, pods: sleepingPods }),
      expr: e.fill(|||
        max by ($(gpu)) ($(activity)) < $(threshold)
        $(sleeping)
      |||, { gpu: id, activity: $.exporter.attributed(e.fill('avg_over_time($(activity){$(namespace)!=""}[5m])', { activity: activity, namespace: l.namespace })), threshold: std.toString(th.idleActivity), sleeping: sleeping }),
      panelThresholds:: { [activity]: th.idleActivity },
      'for': w.idle,
      summary: 'A GPU held by a pod has been idle for ' + self['for'] + '.',
      description: gpuText + ' is held by ' + podText + ' but its engine has been {{ $value | humanizePercentage }} active for ' + w.idle + ' (threshold ' + e.num(th.idleActivity) + ').',
      tests:
        local busy = 0.6, idle = th.idleActivity / 5;
        [
          t.case('idle for 40 minutes', true, [t.series(activity, t.steps([[busy, 20], [idle, 40]]))], value=idle),
          t.case('one idle MIG instance next to a busy one', true, [t.series(activity, t.steps([[busy, 20], [idle, 40]]), entities=[0]), t.series(activity, '0.6x60', entities=[1])], mig=true, firing=[0], value=idle),
          t.case('idle, no pod holds it (with honorLabels: true its series carry the exporter pod)', false, [t.series(activity, t.steps([[idle, 60]]))], pod=false),
          t.case('busy', false, [t.series(activity, '0.6x60')]),
          t.case('idle for 20 minutes', false, [t.series(activity, t.steps([[busy, 40], [idle, 20]]))]),
        ] + (
          if !vllmServed then [] else
            // The scenario's pod serves with vLLM.
            local engine(values, state) = t.series(inf.sleepState, values, t.scenarioPod { [inf.modelLabel]: 'llama-3-8b', engine: '0', sleep_state: state });
            [
              t.case('idle, its vLLM engine put to sleep', false, [t.series(activity, t.steps([[busy, 20], [idle, 40]]))], extra=[engine('1x20 0x40', 'awake'), engine('0x20 1x40', 'weights_offloaded')]),
              t.case('idle, its vLLM engine awake', true, [t.series(activity, t.steps([[busy, 20], [idle, 40]]))], extra=[engine('1x60', 'awake')], value=idle),
            ]
        ),
      runbook: {
        meaning: 'A pod has held this GPU (or MIG instance) for ' + $.alerts.GPUAllocatedIdle['for'] + ' with its engine under ' + e.percent($.thresholds.idleActivity) + ' % active.',
        impact: 'The GPU costs money and blocks other jobs while doing nothing.',
        queries: [
          q("Engine activity of the pod's GPUs", 'DCGM_FI_PROF_GR_ENGINE_ACTIVE' + podSel),
          q('Idle cost of the namespace, $/hour', 'namespace:gpu_idle_cost_dollars_per_hour:sum{' + is(l.cluster) + ', ' + is(l.namespace) + '}'),
          q('How long the pod has existed', 'time() - kube_pod_created{namespace="$' + l.namespace + '", pod="$' + l.pod + '"}'),
        ],
        diagnosis: [
          step('Is the pod a notebook or interactive session?', 'Ask the owner to release the GPU; apply the idle-session policy.'),
          step('Is the job waiting on data or a checkpoint (CPU, I/O, network busy)?', 'Input pipeline bottleneck: tell the owner.'),
          step('Did the job finish but the pod stayed (sleep, stuck process)?', "Ask the owner to delete it; fix the job's exit."),
        ],
        mitigation: ['Contact the namespace owner with the idle cost.', "For abandoned pods, delete them according to the platform's idle policy."],
        escalation: rb.escalation.mlPlatform,
        dashboards: ['L4', 'L5'],
      },
    },

    // A hung collective looks busy: the engine runs (kernels spin waiting for peers) while the
    // SMs and memory do almost nothing (tensor pipes and power fall with them). Idle detection
    // keys on engine activity and cannot see it.
    GPUBusyNotWorking: mlp {
      family: 'workload',
      severity: 'warning',
      // Each signal is compared on its raw series first, so that the joins see only the few
      // series past their threshold; `for` holds the condition for the whole window.
      local entity = std.join(', ', $.identity.gpuJoin + [l.migInstance]),
      expr: e.fill(|||
        max by ($(gpu)) (
              $(busy)
          and on ($(entity)) DCGM_FI_PROF_SM_ACTIVE < $(sm)
          and on ($(entity)) DCGM_FI_PROF_DRAM_ACTIVE < $(dram)
        )
      |||, { gpu: id, busy: $.exporter.attributed(e.fill('$(activity){$(namespace)!=""} > $(engine)', { activity: activity, namespace: l.namespace, engine: std.toString(th.hungEngineActivity) })), entity: entity, sm: std.toString(th.hungSMActivity), dram: std.toString(th.hungDRAMActivity) }),
      'for': w.hung,
      summary: 'A GPU held by a pod looks busy but does no work: a hung collective or a spinning kernel.',
      description: gpuText + ' held by ' + podText + ' has had its engine {{ $value | humanizePercentage }} active for ' + w.hung + ' while its SMs stayed under ' + e.percent(th.hungSMActivity) + ' % and its memory interface under ' + e.percent(th.hungDRAMActivity) + ' %: the job is probably hung (an NCCL collective waiting on a rank), not training.',
      tests:
        local gpu(engine, sm, dram) = [
          t.series(activity, engine),
          t.series('DCGM_FI_PROF_SM_ACTIVE', sm),
          t.series('DCGM_FI_PROF_DRAM_ACTIVE', dram),
        ];
        [
          t.case('hung collective', true, gpu('0.98x60', '0.1x60', '0.01x60'), value=0.98),
          t.case('training at full speed', false, gpu('0.98x60', '0.8x60', '0.4x60')),
          t.case('memory-bound kernels', false, gpu('0.95x60', '0.15x60', '0.7x60')),
          t.case('hung for the last 10 minutes', false, gpu('0.98x60', '0.8x50 0.1x10', '0.4x50 0.01x10')),
          t.case('spinning on a GPU no pod holds', false, gpu('0.98x60', '0.1x60', '0.01x60'), pod=false),
        ],
      runbook: {
        meaning: 'For ' + $.alerts.GPUBusyNotWorking['for'] + ' the GPU has looked busy (graphics engine over ' + e.percent(th.hungEngineActivity) + ' % active) while doing almost no work: SMs under ' + e.percent(th.hungSMActivity) + ' %, memory interface under ' + e.percent(th.hungDRAMActivity) + ' % (tensor pipes idle and power low with them). That is what a hung collective looks like: NCCL kernels spin waiting for a rank that never arrives.',
        impact: 'The job makes no progress while holding its GPUs (often every GPU of a multi-node job); utilization dashboards show it busy, so nothing else notices.',
        queries: [
          { title: 'Engine against SM activity of the pod', expr: e.fill(|||
            DCGM_FI_PROF_GR_ENGINE_ACTIVE{$(namespace)="$$(namespace)", $(pod)="$$(pod)"} - DCGM_FI_PROF_SM_ACTIVE{$(namespace)="$$(namespace)", $(pod)="$$(pod)"}
          |||, { namespace: l.namespace, pod: l.pod }) },
          // NCCL Inspector's file of the GPU (section nccl, which takes the query where it is
          // off): unwritten for several dump intervals, the collectives stopped. The hang
          // joins this alert rather than a second one doubling it.
          // The file names the GPU by its CUDA UUID: joined to dcgm-exporter's UUID label.
          { title: "Seconds since NCCL Inspector last wrote the GPU's file (the job's dump interval is its pace)", expr: e.fill(|||
            time() - max by ($(uuid)) (label_replace(node_textfile_mtime_seconds{job="$(job)", $(cluster)="$$(cluster)", file=~"$(file)"}, "$(uuid)", "$(prefix)$1", "file", "$(file)")) and on ($(uuid)) $(gpuInfo){$(cluster)="$$(cluster)", $(uuid)="$$(uuid)"}
          |||, { job: $.nccl.job, cluster: l.cluster, uuid: l.uuid, file: $.nccl.file, prefix: $.nccl.uuidPrefix, gpuInfo: names.gpuInfo }) },
        ],
        diagnosis: (if !$.enabled.nccl then [] else [
                      { check: "Has the GPU's NCCL Inspector file gone unwritten for several dump intervals (the query above)?", yes: "Its collectives stopped: a hang, not a slow kernel. The communicator's other ranks' files stopped at the same time; the rank whose file stopped first, or whose node has an InfiniBand alert, is the one they wait for: restart the job from its last checkpoint without it.", no: '' },
                    ]) + [
          { check: 'Do other GPUs of the same job fire this alert?', yes: 'The whole job is waiting on one rank: find it (its GPU may show an XID, its node a network fault), then restart the job from its last checkpoint.', no: '' },
          { check: 'Do the job logs stop at a collective (NCCL watchdog timeout, no step logged)?', yes: 'A hung collective: one rank died or is stuck; restart the job from its last checkpoint.', no: 'A kernel spins on its own: ask the job owner to profile it.' },
        ],
        mitigation: ['Tell the job owner (namespace and pod are on the alert); restart the job from its last checkpoint, with NCCL_DEBUG=INFO to find the rank.'],
        escalation: 'ML platform on-call.',
        dashboards: ['L4', 'L5'],
      },
    },

    GPUClusterAllocationHigh: mlp {
      family: 'capacity',
      severity: 'warning',
      expr: e.fill(|||
        cluster:kube_gpu_allocation:ratio > $(threshold)
      |||, { threshold: std.toString(th.clusterAllocationRatio) }),
      'for': '15m',
      identity: [l.cluster],
      summary: 'A cluster has almost no allocatable GPUs left.',
      description: 'Cluster {{ $labels.' + l.cluster + ' }} has {{ $value | humanizePercentage }} of its allocatable GPUs requested by pods (threshold ' + e.num(th.clusterAllocationRatio) + '): new GPU pods will wait.',
      tests:
        local node = e.ksm(ksmJob, { node: 'gpu-node-0', resource: gpuResource, unit: 'integer' });
        local onlyDRA = !$.kubernetes.devicePlugin;
        // A pod holding gpus GPUs (from device first on) while running is 1: its requests and
        // phase, or on a DRA fleet its claim's devices while it runs.
        local pod(name, gpus, running, first=0) = if onlyDRA then [
          t.series('kube_resourceclaim_allocation_device_info', std.strReplace(running, '0x', '_x'), e.ksm(ksmJob, { resourceclaim: name + '-gpu', namespace: 'ml-team', request: 'gpu', driver: $.kubernetes.draDriver, pool: t.scenarioHost, device: 'gpu-' + i }))
          for i in std.range(first, first + gpus - 1)
        ] else [
          t.series('kube_pod_container_resource_requests', gpus + 'x60', e.ksm(ksmJob, { namespace: 'ml-team', pod: name, container: 'worker', node: 'gpu-node-0', resource: gpuResource, unit: 'integer' })),
          t.series('kube_pod_status_phase', running, e.ksm(ksmJob, { namespace: 'ml-team', pod: name, phase: 'Running', uid: 'uid-' + name })),
        ];
        local allocatable = if onlyDRA then $.kubernetes.capacitySeries(t.scenarioHost, [[8, 60]]) else [t.series('kube_node_status_allocatable', '8x60', node)];
        // The node's GPUs report (a DRA node's capacity is the GPUs it publishes).
        local gpus = if onlyDRA then 8 else 1;
        [
          t.case('every GPU requested', true, [], gpus=gpus, extra=allocatable + pod('trainer', 8, '1x60'), target={}, value=1),
          t.case('half the GPUs requested', false, [], gpus=gpus, extra=allocatable + pod('trainer', 4, '1x60')),
          t.case('full for the last 10 minutes', false, [], gpus=gpus, extra=allocatable + pod('trainer', 4, '1x60') + pod('burst', 4, '0x50 1x10', first=4)),
        ],
      runbook: {
        meaning: 'Pods request more than ' + e.percent($.thresholds.clusterAllocationRatio) + " % of the cluster's allocatable GPUs.",
        impact: 'New GPU pods stay Pending; autoscaled inference cannot scale out.',
        queries: [
          q('Allocation ratio', 'cluster:kube_gpu_allocation:ratio{' + is(l.cluster) + '}'),
          q('Requests by namespace', 'sort_desc(namespace:kube_gpu_requested:sum{' + is(l.cluster) + '})'),
          q('Allocated but idle GPUs', 'count(ALERTS{alertname="GPUAllocatedIdle", ' + is(l.cluster) + ', alertstate="firing"})'),
          q('Pending GPU pods', 'count(kube_pod_status_phase{phase="Pending", ' + is(l.cluster) + '} * on (namespace, pod) group_left () max by (namespace, pod) (kube_pod_container_resource_requests{resource=~"' + $.kubeStateMetrics.gpuResources + '"}))'),
        ],
        diagnosis: [
          step('Are many allocated GPUs idle?', 'Reclaim them first (GPUAllocatedIdle).'),
          step('Is one namespace far above its usual share?', 'Talk to that team; enforce quotas.', 'Real demand: add capacity.'),
        ],
        mitigation: ['Reclaim idle allocations.', 'Add nodes or shift work to another cluster.', 'Set ResourceQuotas per namespace.'],
        escalation: rb.escalation.mlPlatform + ' Capacity planning for new hardware.',
        dashboards: ['L1', 'L2'],
      },
    },

    GPUTrainingStraggler: mlp {
      family: 'utilization',
      severity: 'warning',
      local median = e.fill(|||
        quantile by ($(workload)) (0.5, $(record))
      |||, { workload: std.join(', ', workload), record: stragglerRecord }),
      expr: e.fill(|||
        $(record) < on ($(workload)) group_left () ($(ratio) * $(median)) and on ($(workload)) ($(median) > $(busy)) and on ($(workload)) (count by ($(workload)) ($(record)) > 1)
      |||, { record: stragglerRecord, workload: std.join(', ', workload), ratio: std.toString(th.stragglerRatio), median: median, busy: std.toString(th.stragglerBusyActivity) }),
      'for': '15m',
      identity: $.identity.alert + owner,
      summary: 'One GPU of a multi-GPU workload is far slower than its siblings.',
      description: gpuText + ' of {{ $labels.owner_kind }} {{ $labels.' + l.namespace + ' }}/{{ $labels.owner_name }} is {{ $value | humanizePercentage }} SM-active while its siblings stay busy: the whole job waits for it.',
      tests:
        local busy = 0.8, slow = 0.2, sm = 'DCGM_FI_PROF_SM_ACTIVE';
        local siblings(slowValues) = [t.series(sm, busy + 'x60', entities=[0, 1, 3]), t.series(sm, slowValues, entities=[2])];
        [
          t.case('one rank slows down', true, siblings(t.steps([[busy, 20], [slow, 40]])), gpus=4, owner='llama-7b-finetune', ownerKind=$.training.scenarioKind, firing=[2], value=slow),
          // The book's incident walkthrough: NVLink CRC errors on one GPU slow a 7B fine-tune.
          // The NVLink ticket fires on that GPU, the straggler ticket on the workload, and
          // nothing pages (every alert's firing set is checked exactly).
          t.case('incident walkthrough: NVLink CRC errors slow a 7B fine-tune',
                 true,
                 siblings(t.steps([[busy, 20], [slow, 40]]))
                 + [t.series('DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL', '0x20 0+' + (10 * $.thresholds.nvlinkCrcErrorsPerMinute) + 'x40', entities=[2])],
                 gpus=4,
                 owner='llama-7b-finetune',
                 ownerKind=$.training.scenarioKind,
                 firing=[2],
                 value=slow,
                 alsoFires=[t.also('GPUNvlinkCrcErrors', 10 * $.thresholds.nvlinkCrcErrorsPerMinute, firing=[2])]),
          t.case('every rank busy', false, [t.series(sm, busy + 'x60')], gpus=4, owner='llama-7b-finetune', ownerKind=$.training.scenarioKind),
          t.case('the whole job idle (checkpointing)', false, [t.series(sm, '0.1x60')], gpus=4, owner='llama-7b-finetune', ownerKind=$.training.scenarioKind),
          t.case('single-GPU job', false, [t.series(sm, slow + 'x60')], owner='llama-7b-finetune', ownerKind=$.training.scenarioKind),
          t.case('no controller owns the pods', false, siblings(t.steps([[busy, 20], [slow, 40]])), gpus=4),
          t.case('uneven inference replicas (a ReplicaSet)', false, siblings(t.steps([[busy, 20], [slow, 40]])), gpus=4, owner='llm-server-7d9f', ownerKind='ReplicaSet'),
          t.case('one rank slow for the last 10 minutes', false, siblings(t.steps([[busy, 50], [slow, 10]])), gpus=4, owner='llama-7b-finetune', ownerKind=$.training.scenarioKind),
        ],
      runbook: {
        meaning: 'One GPU of a multi-GPU job runs far below the median SM activity of its siblings while they stay busy.',
        impact: "Synchronous training waits for the slowest rank: the whole job runs at this GPU's pace.",
        queries: [
          q('SM activity of every GPU of the job', stragglerRecord + '{' + is(l.cluster) + ', ' + is(l.namespace) + ', owner_name="$owner_name"}'),
          q('NVLink errors on the slow GPU', '60 * rate(DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL' + gpuSel + '[5m])'),
          q('Throttling of the slow GPU', 'gpu:dcgm_clock_throttle_thermal:max' + gpuSel + ' or gpu:dcgm_clock_throttle_power:max' + gpuSel),
          q('Other alerts on the slow GPU', 'ALERTS{' + is(l.uuid) + ', alertstate="firing"}'),
        ],
        diagnosis: [
          step('Does the slow GPU have NVLink or PCIe errors (GPUNvlinkCrcErrors, GPUPcieReplayRate)?', 'Hardware: follow that runbook; restart the job without the node.'),
          step('Is the slow GPU throttled (thermal or power)?', 'Cooling or power: follow the throttling runbook.'),
          step('Does the slow rank have more data or a different shard (data imbalance)?', 'Workload: rebalance the input pipeline.', 'Profile the rank (Nsight Systems) and escalate to the ML platform team.'),
        ],
        mitigation: ['If the GPU is faulty, cordon its node and restart the job from its last checkpoint elsewhere.', 'Otherwise give the owner the per-rank view to fix the imbalance.'],
        escalation: rb.escalation.mlPlatform,
        dashboards: ['L4', 'L5'],
      },
    },

    local vllm(pod, extra={}) = { namespace: 'inference', pod: pod, [inf.modelLabel]: 'llama-3-8b', job: 'vllm', instance: pod + ':8000' } + extra,
    local infId = std.join(', ', inf.identity),
    local infText = 'vLLM {{ $labels.namespace }}/{{ $labels.pod }} serving {{ $labels.' + inf.modelLabel + ' }}',
    local target = { namespace: 'inference', pod: 'llm-0', [inf.modelLabel]: 'llama-3-8b' },

    local inferenceRunbook(meaning, impact, queries, diagnosis, mitigation) = {
      meaning: meaning,
      impact: impact,
      queries: queries,
      diagnosis: diagnosis,
      mitigation: mitigation,
      escalation: rb.escalation.mlPlatform,
      dashboards: ['L4'],
    },
    local serverMatchers = is(l.cluster) + ', namespace="$namespace", pod="$pod"',
    local serverSel = '{' + serverMatchers + '}',

    // Every served engine that shows both its KV cache's used share and its preemptions
    // (inference.gauges): a counter's increase, or a level's highest reading, over 10m.
    local preempted(r) = if r.type == 'counter' then 'increase(%s[10m])' else 'max_over_time(%s[10m])',
    [if inf.showing(['kvCache', 'preemptions']) != [] then 'GPUInferenceKVCachePressure']: mlp {
      section: 'inference',
      family: 'inference',
      severity: 'warning',
      engines:: inf.showing(['kvCache', 'preemptions']),
      local perServer(field, f, awake=false) = std.join(' or ', [
        e.fill('max by ($(server)) ($(series))', { server: infId, series: g })
        for g in inf.gauges(field, f, awake=awake)
      ]),
      expr: e.fill(|||
        ($(usage)) > $(threshold) and on ($(server)) ($(preempting)) > 0
      |||, { server: infId, usage: perServer('kvCache', 'avg_over_time(%s[10m])', awake=true), threshold: std.toString(th.kvCacheUsageRatio), preempting: perServer('preemptions', preempted) }),
      'for': '10m',
      identity: inf.identity,
      summary: 'An inference server runs out of KV cache and preempts requests.',
      description: 'Inference server {{ $labels.namespace }}/{{ $labels.pod }} serving {{ $labels.' + inf.modelLabel + ' }} uses {{ $value | humanizePercentage }} of its KV cache and is preempting requests, which recomputes them and raises latency.',
      tests:
        local full = (1 + th.kvCacheUsageRatio) / 2;
        (if std.member(self.engines, 'vllm') then [
           t.case('full cache, preempting', true, [], extra=[t.series(inf.kvCacheUsage, full + 'x60', vllm('llm-0')), t.series(inf.preemptions, '0+2x60', vllm('llm-0'))], target=target, value=full),
           t.case('full cache, no preemptions', false, [], extra=[t.series(inf.kvCacheUsage, full + 'x60', vllm('llm-0')), t.series(inf.preemptions, '3x60', vllm('llm-0'))]),
           t.case('preempting for the last 10 minutes', false, [], extra=[t.series(inf.kvCacheUsage, full + 'x60', vllm('llm-0')), t.series(inf.preemptions, '0x50 0+2x10', vllm('llm-0'))]),
           // Asleep for the last 20 minutes (weights offloaded): the gauge keeps its last reading.
           t.case('an engine put to sleep keeps its last reading', false, [], extra=[
             t.series(inf.kvCacheUsage, full + 'x60', vllm('llm-0', { engine: '0' })),
             t.series(inf.preemptions, '0+2x60', vllm('llm-0', { engine: '0' })),
             t.series(inf.sleepState, '1x40 0x20', vllm('llm-0', { engine: '0', sleep_state: 'awake' })),
             t.series(inf.sleepState, '0x40 1x20', vllm('llm-0', { engine: '0', sleep_state: 'weights_offloaded' })),
           ]),
           t.case('full cache, preempting, the engine awake', true, [], extra=[
             t.series(inf.kvCacheUsage, full + 'x60', vllm('llm-0', { engine: '0' })),
             t.series(inf.preemptions, '0+2x60', vllm('llm-0', { engine: '0' })),
             t.series(inf.sleepState, '1x60', vllm('llm-0', { engine: '0', sleep_state: 'awake' })),
           ], target=target, value=full),
           t.case('a vLLM older than 0.10 (the deprecated gauge), full, preempting', true, [], extra=[t.series(inf.kvCacheUsageDeprecated, full + 'x60', vllm('llm-0')), t.series(inf.preemptions, '0+2x60', vllm('llm-0'))], target=target, value=full),
           t.case('the deprecated gauge is read only where the current one is missing', false, [], extra=[t.series(inf.kvCacheUsage, '0.5x60', vllm('llm-0')), t.series(inf.kvCacheUsageDeprecated, full + 'x60', vllm('llm-0')), t.series(inf.preemptions, '0+2x60', vllm('llm-0'))]),
         ] else []) + [
          // Every other engine, on its own series: a counter of preemptions rises by 2 a
          // minute, a level reads 2 requests paused.
          c
          for engine in self.engines
          if engine != 'vllm'
          for p in [inf.profiles[engine]]
          for series in [function(r, values) t.series(r.name, values, inf.scenarioServer(engine, serving=true) + r.labels)]
          for preempting in [function(yes) series(p.preemptions[0], if p.preemptions[0].type == 'counter' then (if yes then '0+2x60' else '3x60') else (if yes then '2x60' else '0x60'))]
          for c in [
            t.case('full cache, preempting on ' + p.title, true, [], extra=[series(p.kvCache[0], full + 'x60'), preempting(true)], target=target, value=full),
            t.case('full cache, no preemptions on ' + p.title, false, [], extra=[series(p.kvCache[0], full + 'x60'), preempting(false)]),
          ]
        ],
      runbook: inferenceRunbook(
        'An inference server has kept its KV cache over ' + e.percent($.thresholds.kvCacheUsageRatio) + ' % full for ' + $.alerts.GPUInferenceKVCachePressure['for'] + ' and preempts requests (' + std.join('; ', [inf.profiles[x].title + ': ' + std.join(' and ', [r.name for r in inf.profiles[x].kvCache[0:1] + inf.profiles[x].preemptions]) for x in self.engines]) + ').',
        'Preempted requests are recomputed: time to first token and latency rise; throughput falls.',
        [
          q('KV-cache usage', std.join(' or ', inf.gauges('kvCache', matchers=serverMatchers))),
          q('Preemptions per minute (a counter), or requests paused (a level)', std.join(' or ', inf.gauges('preemptions', function(r) if r.type == 'counter' then '60 * rate(%s[5m])' else '%s', matchers=serverMatchers))),
          q('Waiting requests', std.join(' or ', inf.gauges('waiting', matchers=serverMatchers))),
        ],
        [
          step('Did traffic or prompt length rise?', 'Scale out replicas.'),
          step("Was the engine's batch size or memory share changed in a recent release (vLLM's max-num-seqs, gpu-memory-utilization; SGLang's max-running-requests, mem-fraction-static)?", 'Roll back the configuration.', 'Give the model more KV cache (larger GPU, tensor parallelism, quantised KV cache).'),
        ],
        ['Scale out the deployment.', 'Lower the batch size or raise the memory share of the KV cache, within memory limits.'],
      ),
    },

    // Every served engine's waiting queue (inference.gauges('waiting')), each server's read
    // under the first of its engine's reads it exports.
    [if inf.having('waiting') != [] then 'GPUInferenceQueueGrowing']: mlp {
      section: 'inference',
      family: 'inference',
      severity: 'warning',
      engines:: inf.having('waiting'),
      local waiting(f) = std.join(' or ', [
        e.fill('max by ($(server)) ($(series))', { server: infId, series: g })
        for g in inf.gauges('waiting', f)
      ]),
      expr: e.fill(|||
        ($(now)) > $(depth)
        and on ($(server))
        ($(growing)) > 0
      |||, { server: infId, now: waiting('%s'), growing: waiting('deriv(%s[10m])'), depth: std.toString(th.inferenceQueueDepth) }),
      'for': '10m',
      identity: inf.identity,
      summary: 'Requests keep piling up in an inference server queue.',
      description: 'Inference server {{ $labels.namespace }}/{{ $labels.pod }} serving {{ $labels.' + inf.modelLabel + ' }} has {{ $value }} requests waiting and the queue keeps growing: add replicas or shed load.',
      tests:
        local depth = th.inferenceQueueDepth;
        // vLLM 0.20 and later: the whole count includes requests the scheduler parked.
        local byReason(capacity, deferred) = [
          t.series(inf.waiting, '0+' + (capacity + deferred) + 'x60', vllm('llm-0')),
          t.series(inf.waitingByReason, '0+' + capacity + 'x60', vllm('llm-0') { engine: '0', reason: 'capacity' }),
          t.series(inf.waitingByReason, '0+' + deferred + 'x60', vllm('llm-0') { engine: '0', reason: 'deferred' }),
        ];
        (if std.member(self.engines, 'vllm') then [
           t.case('queue growing', true, [], extra=[t.series(inf.waiting, '0+' + depth / 10 + 'x60', vllm('llm-0'))], target=target, value=6 * depth),
           t.case('deep but steady queue', false, [], extra=[t.series(inf.waiting, (3 * depth) + 'x60', vllm('llm-0'))]),
           t.case('short queue growing', false, [], extra=[t.series(inf.waiting, '0+' + depth / 100 + 'x60', vllm('llm-0'))]),
           t.case('queue growing for the last 5 minutes', false, [], extra=[t.series(inf.waiting, '0x55 0+' + (3 * depth) + 'x5', vllm('llm-0'))]),
           t.case('deferred requests pile up, the capacity queue stays short', false, [], extra=byReason(depth / 100, depth / 10)),
           t.case('the capacity queue grows, deferred requests beside it', true, [], extra=byReason(depth / 10, depth / 10), target=target, value=6 * depth),
         ] else []) + [
          // Every other engine, on its own gauge, labelled as it writes it.
          c
          for engine in self.engines
          if engine != 'vllm'
          for p in [inf.profiles[engine]]
          for queue in [function(values) t.series(p.waiting[0].name, values, inf.scenarioServer(engine, serving=true) + p.waiting[0].labels)]
          for c in [
            t.case('queue growing on ' + p.title, true, [], extra=[queue('0+' + depth / 10 + 'x60')], target=target, value=6 * depth),
            t.case('deep but steady queue on ' + p.title, false, [], extra=[queue((3 * depth) + 'x60')]),
          ]
        ],
      runbook: inferenceRunbook(
        "Requests keep piling up in an inference server's waiting queue: " + std.join('; ', [inf.profiles[x].title + ': ' + std.join(', then ', [r.name + (if r.selector == '' then '' else '{' + r.selector + '}') for r in inf.profiles[x].waiting]) for x in self.engines]) + '.'
        + (if std.member(self.engines, 'vllm') then " vLLM's capacity queue (vLLM 0.20 and later) holds the requests waiting for room in the running batch; on older versions the whole count is read, which also holds requests the scheduler parked on purpose (a grammar, remote KV, a LoRA slot)." else ''),
        'Queued requests wait before their first token: the TTFT SLO burns.',
        [
          q('Waiting requests', std.join(' or ', ['sum(' + x + ')' for x in inf.gauges('waiting', matchers=serverMatchers)])),
        ] + (if std.member(self.engines, 'vllm') then [
               q('Waiting requests, by reason where vLLM splits them', 'sum by (reason) (' + $.inference.waitingByReason + serverSel + ') or sum(' + $.inference.waiting + serverSel + ')'),
               q('Queue time p99', $.histograms.quantile(0.99, $.inference.queueTime, [], '5m', serverMatchers)),
             ] else []) + [
          q('TTFT SLO burn', 'slo:error_budget:burn_rate{slo="InferenceTTFT", namespace="$namespace"}'),
        ],
        [
          step('Did incoming traffic grow?', 'Scale out; check the autoscaler.', 'A slow replica: check its GPU (throttling, errors) on the L4 dashboard.'),
        ],
        ['Scale out the deployment.', 'Shed or rate-limit low-priority traffic.'],
      ),
    },

    // A vLLM server that serves (reports its running requests) but not a metric the rules read
    // under its configured name (nor, for the KV cache, its deprecated one): a vLLM release
    // renamed it, and every rule on it went silent. Histograms are left out: they appear only
    // with the first request. Each is named by its configured name.
    local vllmSeries(name) = inf.seriesOf('vllm', name),
    local guarded = { [inf.kvCacheUsage]: inf.kvCache(vllmSeries), [inf.waiting]: vllmSeries(inf.waiting), [inf.preemptions]: vllmSeries(inf.preemptions) },
    GPUInferenceMetricMissing: mlp {
      section: 'vllm',
      family: 'inference',
      severity: 'warning',
      expr: std.join(' or ', [
        e.fill(|||
          label_replace(group by ($(server)) ($(running)) unless on ($(server)) group by ($(server)) ($(read)), "metric", "$(metric)", "", "")
        |||, { server: infId, running: vllmSeries(inf.running), metric: m, read: guarded[m] })
        for m in std.objectFields(guarded)
      ]),
      'for': '30m',
      identity: inf.identity + ['metric'],
      summary: 'An inference server does not export a metric the rules read: they are silent for it.',
      description: infText + ' reports ' + inf.running + ' but not {{ $labels.metric }}: its vLLM version may have renamed it; set inference.' + '{kvCacheUsage, waiting, preemptions} in the catalog to the name it exports.',
      tests: [
        t.case('vLLM renamed the KV cache gauge', true, [], extra=[
          t.series(inf.running, '2x60', vllm('llm-0')),
          t.series(inf.waiting, '0x60', vllm('llm-0')),
          t.series(inf.preemptions, '0x60', vllm('llm-0')),
          t.series('vllm:kv_cache_usage_ratio', '0.5x60', vllm('llm-0')),
        ], target=target, labels={ metric: inf.kvCacheUsage }, value=1),
        t.case('every metric under its configured name', false, [], extra=[t.series(m, '1x60', vllm('llm-0')) for m in [inf.running] + std.objectFields(guarded)]),
        t.case('an older vLLM exports the KV cache gauge under its deprecated name', false, [], extra=[t.series(m, '1x60', vllm('llm-0')) for m in [inf.running, inf.waiting, inf.preemptions, inf.kvCacheUsageDeprecated]]),
      ],
      runbook: inferenceRunbook(
        'A vLLM server reports ' + $.inference.running + ' but not a metric the generated rules read under its configured name (the alert names it).',
        'Every rule, SLO and alert on that metric is silent for the server: a KV cache full, a queue growing or preemptions go unnoticed.',
        [
          q('What the server exports', 'count by (__name__) ({__name__=~"vllm:.*", ' + is(l.cluster) + ', namespace="$namespace", pod="$pod"})'),
        ],
        [
          step('Does the server export the metric under another name (vLLM renames them between releases)?', 'Set the new name in the catalog (inference: kvCacheUsage, waiting, preemptions) and regenerate.', 'The metrics endpoint may be filtered (relabeling drops it): check the scrape config.'),
        ],
        ['Point the catalog at the names your vLLM version exports, regenerate and deploy the rules.'],
      ),
    },

    GPUMemoryExhaustionRisk: mlp {
      family: 'workload',
      severity: 'warning',
      local used = 'DCGM_FI_DEV_FB_USED',
      local free = 'DCGM_FI_DEV_FB_FREE',
      expr: e.fill(|||
        max by ($(gpu)) (
          $(outgrowing)
        )
      |||, {
        gpu: id,
        // The pod filter after the comparison: it joins the few series past it.
        outgrowing: $.exporter.attributed(e.fill('predict_linear($(used){$(namespace)!=""}[$(window)], $(horizon)) > $(used) + $(free)', { used: used, free: free, namespace: l.namespace, window: w.memoryTrend, horizon: std.toString(th.memoryForecastHours * 3600) })),
      }),
      'for': '15m',
      summary: "A workload's GPU memory keeps growing and will run out within hours.",
      local amount = if $.fields[used].unit == 'MiB' then '{{ $value | printf "%.0f" }} MiB' else '{{ $value | humanize1024 }}B',
      description: gpuText + ' held by ' + podText + ' is projected to need ' + amount + ' of GPU memory in ' + th.memoryForecastHours + 'h, more than it has: a leak or fragmentation will end in an out-of-memory error.',
      tests:
        local total = 81920, start = 10000, perMinute = 500;
        local atEval = start + 60 * perMinute;
        [
          t.case('steady growth', true, [t.series(used, start + '+' + perMinute + 'x60'), t.series(free, (total - start) + '-' + perMinute + 'x60')], value=atEval + th.memoryForecastHours * 60 * perMinute),
          t.case('memory preallocated and flat (vLLM)', false, [t.series(used, '72000x60'), t.series(free, (total - 72000) + 'x60')]),
          t.case('slow growth', false, [t.series(used, start + '+10x60'), t.series(free, (total - start) + '-10x60')]),
          t.case('growing on a GPU no pod holds', false, [t.series(used, start + '+' + perMinute + 'x60'), t.series(free, (total - start) + '-' + perMinute + 'x60')], pod=false),
          t.case('growth for the last 10 minutes', false, [t.series(used, '10000x50 10000+4000x10'), t.series(free, '71920x50 71920-4000x10')]),
        ],
      runbook: {
        meaning: 'The GPU memory a pod uses grows steadily; at this rate it runs out within ' + $.thresholds.memoryForecastHours + ' hours.',
        impact: 'The job will crash with CUDA out-of-memory, typically hours into a run.',
        queries: [
          q('Memory used and free', 'DCGM_FI_DEV_FB_USED' + gpuSel + ' or DCGM_FI_DEV_FB_FREE' + gpuSel),
          q('Growth per hour', 'deriv(DCGM_FI_DEV_FB_USED' + gpuSel + '[1h]) * 3600'),
        ],
        diagnosis: [
          step("Does the framework's allocated memory grow (torch.cuda.memory_allocated)?", 'A leak in the job: tensors kept alive across steps.'),
          step('Does reserved memory grow while allocated stays flat?', 'Fragmentation: set PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True or bucket sizes.', 'Caching by design: watch it.'),
        ],
        mitigation: ['Tell the owner before the crash: checkpoint now.', 'Plan a restart from the checkpoint with the leak or allocator setting fixed.'],
        escalation: rb.escalation.mlPlatform,
        dashboards: ['L4', 'L5'],
      },
    },

    local hygiene = { family: 'hygiene', team: $.teams.infra },

    GPUDriverVersionSkew: hygiene {
      severity: 'warning',
      local h = $.exporter.healthField,
      expr: e.fill(|||
        count by ($(cluster)) (group by ($(cluster), $(driver)) ($(health))) > 1
      |||, { cluster: l.cluster, driver: l.driverVersion, health: $.exporter.health() }),
      'for': '30m',
      identity: [l.cluster],
      summary: 'GPUs of one cluster run different driver versions.',
      description: 'Cluster {{ $labels.' + l.cluster + ' }} runs {{ $value }} NVIDIA driver versions: a stalled upgrade, or nodes outside the fleet image. Mixed drivers break CUDA compatibility assumptions.',
      tests: [
        t.case('two driver versions', true, [], gpus=2, drivers=['550.90.07', '535.183.01'], target={}, value=2),
        t.case('one driver version', false, [], gpus=2),
        t.case('upgraded GPU appeared 10 minutes ago', false, [t.series(h, '65x60', entities=[0]), t.series(h, '_x50 65x10', entities=[1])], gpus=2, drivers=['550.90.07', '535.183.01'], health=false),
      ],
      runbook: {
        meaning: 'GPUs of one cluster run more than one NVIDIA driver version.',
        impact: 'CUDA images built for the newer driver fail on older nodes ("driver insufficient"); results may differ between nodes.',
        queries: [
          q('GPUs per driver version', 'count by (' + l.driverVersion + ') (group by (' + std.join(', ', $.identity.gpuJoin) + ', ' + l.driverVersion + ') (' + $.exporter.health(is(l.cluster)) + '))'),
          q('Nodes per driver version', 'count by (' + l.driverVersion + ') (group by (' + l.host + ', ' + l.driverVersion + ') (' + $.exporter.health(is(l.cluster)) + '))'),
        ],
        diagnosis: [
          step('Is a driver rollout in progress?', 'Check that it progresses; the alert clears when it ends.', 'Find the nodes on the old version: they missed the image or rollout.'),
        ],
        mitigation: ['Finish or roll back the driver rollout.', "Reimage the stragglers with the fleet's node image."],
        escalation: rb.escalation.infra,
        dashboards: ['L2'],
      },
    },

    DCGMExporterScrapesFailing: hygiene {
      severity: 'warning',
      local up = e.fill(|||
        up{job="$(job)"}
      |||, { job: $.exporter.job }),
      // A target down for good is DCGMExporterDown's; a target that left service discovery
      // (its node drained or deleted) has no up series now, and is not failing.
      expr: e.fill(|||
        (1 - avg_over_time($(up)[$(window)])) > $(ratio) unless max_over_time($(up)[5m]) == 0 and $(up)
      |||, { up: up, window: w.scrapeFailures, ratio: std.toString(th.scrapeFailureRatio) }),
      'for': '10m',
      identity: [l.cluster, 'instance', 'job'] + $.exporter.targetPodLabels,
      summary: 'A dcgm-exporter target keeps failing scrapes while it is up.',
      description: 'dcgm-exporter {{ $labels.instance }} in cluster {{ $labels.' + l.cluster + ' }} failed {{ $value | humanizePercentage }} of its scrapes in the last ' + w.scrapeFailures + ': GPU series have gaps (scrape timeout, DCGM hang, node pressure).',
      tests:
        // Every fourth scrape fails; 8 of the 30 samples in the window are failures.
        local flaky = std.join(' ', [if i % 4 == 3 then '0' else '1' for i in std.range(0, 60)]);
        [
          t.case('every fourth scrape fails', true, [], up=flaky, value=8 / 30),
          t.case('one failed scrape', false, [], up='1x58 0 1'),
          t.case('target down', false, [], up='1x30 0x30', health='65x30 _x30', alsoFires=[t.also('DCGMExporterDown', 0)]),
          // Its last three scrapes failed as the node drained, then it left service discovery.
          t.case('target left service discovery', false, [], up='1x37 0 0 0 _x20', health='65x40 _x20'),
        ],
      runbook: rb.exporterTarget($.exporter.job, l.cluster) {
        meaning: 'A dcgm-exporter target is up, but a share of its scrapes fails.',
        impact: 'GPU series have gaps: rates and alerts with `for` become unreliable for that node.',
        mitigation: ['Raise the scrape timeout or trim the counter file if scrapes are slow.', 'Restart the exporter if DCGM answers slowly; drain the node if DCGM keeps hanging.'],
        escalation: rb.escalation.infra,
        dashboards: ['L2', 'L3'],
      },
    },
  },
}
