// GPUs their pods hold without using them (idle, or busy but not working: a hung collective),
// a cluster that runs out of GPUs to allocate, and GPU memory on course to run out.
local e = import '../lib/expr.libsonnet';
local names = import '../lib/names.libsonnet';
local rb = import '../lib/runbook.libsonnet';
local t = import '../lib/test.libsonnet';
{
  thresholds+: {
    // Capacity ticket above this share of allocatable GPUs requested by pods.
    clusterAllocationRatio: 0.95,
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
  },

  windows+: {
    idle: '30m',
    hung: '20m',
    memoryTrend: '1h',
  },

  local l = $.labels,
  local th = $.thresholds,
  local w = $.windows,
  local inf = $.inference,
  // vLLM's sleep mode leaves its GPU idle by design, where the fleet serves with vLLM.
  local vllmServed = $.enabled.inference && std.get($.enabled, 'vllm', false),
  local ksmJob = $.kubeStateMetrics.job,
  local gpuResource = $.kubeStateMetrics.gpuResource,

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
      section: 'kubernetes',
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
      |||, {
        gpu: id,
        activity: $.exporter.attributed(e.fill('avg_over_time($(activity){$(namespace)!=""}[5m])', { activity: activity, namespace: l.namespace })),
        threshold: std.toString(th.idleActivity),
        sleeping: sleeping,
      }),
      panelThresholds:: { [activity]: th.idleActivity },
      'for': w.idle,
      summary: 'A GPU held by a pod has been idle for ' + self['for'] + '.',
      description: gpuText + ' is held by ' + podText + ' but its engine has been {{ $value | humanizePercentage }} active for ' + w.idle + ' (threshold ' + e.num(th.idleActivity) + ').',
      tests:
        local busy = 0.6, idle = th.idleActivity / 5;
        [
          t.case('idle for 40 minutes', true, [t.series(activity, t.steps([[busy, 20], [idle, 40]]))], value=idle),
          t.case(
            'one idle MIG instance next to a busy one',
            true,
            [t.series(activity, t.steps([[busy, 20], [idle, 40]]), entities=[0]), t.series(activity, '0.6x60', entities=[1])],
            mig=true,
            firing=[0],
            value=idle,
          ),
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
          q("Engine activity of the pod's GPUs", e.fill('DCGM_FI_PROF_GR_ENGINE_ACTIVE$(podSel)', { podSel: podSel })),
          q('Idle cost of the namespace, $/hour', e.fill('namespace:gpu_idle_cost_dollars_per_hour:sum{$(cluster), $(namespace)}', { cluster: is(l.cluster), namespace: is(l.namespace) })),
          q('How long the pod has existed', e.fill('time() - kube_pod_created{namespace="$$(namespace)", pod="$$(pod)"}', { namespace: l.namespace, pod: l.pod })),
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
      section: 'kubernetes',
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
      |||, {
        gpu: id,
        busy: $.exporter.attributed(e.fill('$(activity){$(namespace)!=""} > $(engine)', { activity: activity, namespace: l.namespace, engine: std.toString(th.hungEngineActivity) })),
        entity: entity,
        sm: std.toString(th.hungSMActivity),
        dram: std.toString(th.hungDRAMActivity),
      }),
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
        meaning: 'For ' + $.alerts.GPUBusyNotWorking['for'] + ' the GPU has looked busy (graphics engine over ' + e.percent(th.hungEngineActivity) + ' % active) while doing almost no work: SMs under ' + e.percent(th.hungSMActivity) +
                 ' %, memory interface under ' + e.percent(th.hungDRAMActivity) + ' % (tensor pipes idle and power low with them). That is what a hung collective looks like: NCCL kernels spin waiting for a rank that never arrives.',
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
      section: 'kubernetes',
      panelThresholds:: { 'cluster:kube_gpu_allocation:ratio': th.clusterAllocationRatio },
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
          t.series(
            'kube_resourceclaim_allocation_device_info',
            std.strReplace(running, '0x', '_x'),
            e.ksm(ksmJob, { resourceclaim: name + '-gpu', namespace: 'ml-team', request: 'gpu', driver: $.kubernetes.draDriver, pool: t.scenarioHost, device: 'gpu-' + i }),
          )
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
          q('Allocation ratio', e.fill('cluster:kube_gpu_allocation:ratio{$(cluster)}', { cluster: is(l.cluster) })),
          q('Requests by namespace', e.fill('sort_desc(namespace:kube_gpu_requested:sum{$(cluster)})', { cluster: is(l.cluster) })),
          q('Allocated but idle GPUs', e.fill('count(ALERTS{alertname="GPUAllocatedIdle", $(cluster), alertstate="firing"})', { cluster: is(l.cluster) })),
          q('Pending GPU pods', e.fill('count(kube_pod_status_phase{phase="Pending", $(cluster)} * on (namespace, pod) group_left () max by (namespace, pod) (kube_pod_container_resource_requests{resource=~"$(gpuResources)"}))', { cluster: is(l.cluster), gpuResources: $.kubeStateMetrics.gpuResources })),
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

    GPUMemoryExhaustionRisk: mlp {
      section: 'kubernetes',
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
        outgrowing: $.exporter.attributed(
          e.fill('predict_linear($(used){$(namespace)!=""}[$(window)], $(horizon)) > $(used) + $(free)', { used: used, free: free, namespace: l.namespace, window: w.memoryTrend, horizon: std.toString(th.memoryForecastHours * 3600) }),
        ),
      }),
      'for': '15m',
      summary: "A workload's GPU memory keeps growing and will run out within hours.",
      local amount = if $.fields[used].unit == 'MiB' then '{{ $value | printf "%.0f" }} MiB' else '{{ $value | humanize1024 }}B',
      description: gpuText + ' held by ' + podText + ' is projected to need ' + amount + ' of GPU memory in ' + th.memoryForecastHours + 'h, more than it has: a leak or fragmentation will end in an out-of-memory error.',
      tests:
        local total = 81920, start = 10000, perMinute = 500;
        local atEval = start + 60 * perMinute;
        [
          t.case(
            'steady growth',
            true,
            [t.series(used, start + '+' + perMinute + 'x60'), t.series(free, (total - start) + '-' + perMinute + 'x60')],
            value=atEval + th.memoryForecastHours * 60 * perMinute,
          ),
          t.case('memory preallocated and flat (vLLM)', false, [t.series(used, '72000x60'), t.series(free, (total - 72000) + 'x60')]),
          t.case('slow growth', false, [t.series(used, start + '+10x60'), t.series(free, (total - start) + '-10x60')]),
          t.case('growing on a GPU no pod holds', false, [t.series(used, start + '+' + perMinute + 'x60'), t.series(free, (total - start) + '-' + perMinute + 'x60')], pod=false),
          t.case('growth for the last 10 minutes', false, [t.series(used, '10000x50 10000+4000x10'), t.series(free, '71920x50 71920-4000x10')]),
        ],
      runbook: {
        meaning: 'The GPU memory a pod uses grows steadily; at this rate it runs out within ' + $.thresholds.memoryForecastHours + ' hours.',
        impact: 'The job will crash with CUDA out-of-memory, typically hours into a run.',
        queries: [
          q('Memory used and free', e.fill('DCGM_FI_DEV_FB_USED$(gpuSel) or DCGM_FI_DEV_FB_FREE$(gpuSel)', { gpuSel: gpuSel })),
          q('Growth per hour', e.fill('deriv(DCGM_FI_DEV_FB_USED$(gpuSel)[1h]) * 3600', { gpuSel: gpuSel })),
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

  },
}
