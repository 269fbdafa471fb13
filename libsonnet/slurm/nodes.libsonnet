// Slurm nodes (scheduler slurm): what slurmctld says each node has and lends, held against
// what dcgm-exporter reports from it, and the sources themselves.
//
// slurmctld's /metrics/nodes counts each node's GPUs (slurm_node_gpus) and those its jobs
// hold (slurm_node_gpus_alloc): a node that reports fewer GPUs than Slurm lends has lost one
// that jobs are still scheduled on; a node whose GPUs carry other jobs (hpc_job) than Slurm
// lends has a broken job mapping (the prolog's files), and its jobs are billed wrong.
local e = import '../lib/expr.libsonnet';
local rb = import '../lib/runbook.libsonnet';
local t = import '../lib/test.libsonnet';
{
  thresholds+: {
    // A GPU no job holds computes (engine activity above this) while a GPU mapped to a job
    // idles: the mapping names the wrong GPU.
    unmappedBusyActivity: 0.5,
  },

  windows+: {
    // How long the exporter's job mapping may disagree with Slurm's allocation: a job's
    // prolog writes its files as the job starts, its epilog removes them as it ends, and
    // slurmctld and the exporter are scraped apart.
    jobMapping: '15m',
  },

  local l = $.labels,
  local s = $.slurm,
  local w = $.windows,
  local slurm = { section: 'slurm', team: $.teams.infra },
  local node = [l.cluster, l.host],
  local byNode = std.join(', ', node),
  local gpu = std.join(', ', $.identity.gpuJoin),
  local health = $.exporter.health,
  // A slurmctld per-node series with the exporter's host label, one per node.
  local perNode(metric) = e.fill('max by ($(node)) ($(series))', {
    node: byNode,
    series: e.fill(|||
      label_replace($(metric){job="$(job)"}, "$(host)", "$(replacement)", "$(nodeLabel)", "$(regex)")
    |||, { metric: metric, job: s.job, host: l.host, replacement: s.hostFromNode.replacement, nodeLabel: s.nodeLabel, regex: s.hostFromNode.regex }),
  }),
  local lent = perNode('slurm_node_gpus'),
  local allocated = perNode('slurm_node_gpus_alloc'),
  local reporting = e.fill('count by ($(node)) (group by ($(gpu)) ($(health)))', { node: byNode, gpu: gpu, health: health() }),
  local nodeSeries(metric, values) = t.series(metric, values, { job: s.job, [s.nodeLabel]: t.scenarioHost }),
  local nodeText = 'Node {{ $labels.' + l.host + ' }} (cluster {{ $labels.' + l.cluster + ' }})',

  metrics+: {
    local own = { section: 'slurm', type: 'gauge', labels: [l.cluster, 'job', 'instance', s.nodeLabel] },
    slurm_node_gpus: own,
    slurm_node_gpus_alloc: own,
  } + (if s.nodeState.source == 'sckyzo' then {
         // SckyzO/slurm_exporter: one series per node and its sinfo long state.
         slurm_node_status: { section: 'slurm', type: 'gauge', labels: [l.cluster, 'job', 'instance', 'node', 'status', 'partition'] },
       } else if s.nodeState.source == 'soperator' then {
         // soperator's exporter: one series per node, its state and flags.
         slurm_node_info: { section: 'slurm', type: 'gauge', labels: [l.cluster, 'job', 'instance', 'node_name', 'state_base', 'state_is_drain', 'state_is_maintenance', 'state_is_reserved', 'reason'] },
       } else {}),

  alerts+: {
    // Slurm lends more GPUs on a node than the exporter reports from it: a GPU fell off the
    // bus, its driver lost it, or the exporter skips it, and jobs are still scheduled onto it.
    // A node that reports none is DCGMExporterMissingOnNode's (it reads the nodes Slurm
    // knows); a node out of service is left to its repair.
    GPUSlurmNodeGPUsMissing: slurm {
      family: 'exporter',
      severity: 'warning',
      local missing = e.fill('$(lent) - $(reporting) > 0', { lent: lent, reporting: reporting }),
      expr: if $.nodes.outOfServiceAlert == '' then missing else e.fill(|||
        $(missing)
        unless on ($(node)) $(outOfService)
      |||, { missing: missing, node: byNode, outOfService: $.nodes.outOfService }),
      'for': '15m',
      identity: node,
      // A GPU Slurm lends that does not report is unavailable capacity: the availability SLO
      // burns with it.
      local unavailable(ratio) = [t.also('SLOGPUAvailability' + a, ratio, target={ slo: 'GPUAvailability' }) for a in ['FastBurn', 'SlowBurn']],
      summary: 'Slurm lends more GPUs on a node than the exporter reports from it.',
      description: nodeText + ' reports {{ $value }} fewer GPUs than Slurm lends on it: jobs are scheduled onto GPUs nobody sees.',
      tests: [
        t.case('Slurm lends 2 GPUs, the exporter reports 1', true, [], gpus=1, extra=[nodeSeries('slurm_node_gpus', '2x60')], target={ [l.host]: t.scenarioHost }, value=1, alsoFires=unavailable(1 / 2)),
        t.case('Slurm lends the GPUs the exporter reports', false, [], gpus=2, extra=[nodeSeries('slurm_node_gpus', '2x60')]),
      ] + (if s.nodeState.source == 'none' then [] else [
             t.case(
               'a drained node that lost a GPU',
               false,
               [],
               gpus=1,
               extra=[nodeSeries('slurm_node_gpus', '2x60'), $.nodes.outOfServiceSeries(t.scenarioHost)],
               alsoFires=unavailable(1 / 2) + [t.also($.nodes.outOfServiceAlert, 1, target={ [l.host]: t.scenarioHost })],
             ),
           ]),
      runbook: {
        meaning: 'slurmctld counts more GPUs on the node (its gres.conf) than dcgm-exporter reports from it for ' + $.alerts.GPUSlurmNodeGPUsMissing['for'] + '.',
        impact: "Jobs are scheduled onto a GPU that is lost or unwatched: they fail at start (CUDA cannot see it) or run without the GPU's alerts.",
        queries: [
          rb.query('GPUs Slurm lends on the node', e.fill('slurm_node_gpus{job="$(job)"}', { job: s.job })),
          rb.query('GPUs the exporter reports on the node', e.fill('count by ($(node)) (group by ($(gpu)) ($(health)))', { node: byNode, gpu: gpu, health: health(e.fill('$(host)="$$(host)"', { host: l.host })) })),
        ],
        diagnosis: [
          rb.step('Does `nvidia-smi -L` on the node list fewer GPUs than `scontrol show node $' + l.host + '` (Gres)?', 'A GPU is lost: follow GPUFellOffBus; ' + $.nodes.cordon(l.host, 'hardware', 'gpu lost')),
          rb.step("Does the exporter's log name a GPU it skips (its collectors, a MIG reconfiguration)?", 'Fix the exporter (restart it; check its --devices option).', 'gres.conf lists a GPU the node does not have: correct it and `scontrol reconfigure`.'),
        ],
        mitigation: [$.nodes.cordon(l.host, 'hardware', 'gpu missing')],
        escalation: rb.escalation.infra,
        dashboards: ['L2', 'L3'],
      },
    },

    // The GPUs of a node that carry a job (hpc_job) are not the GPUs Slurm has lent to jobs
    // there: the exporter's job mapping is broken (no file written, a stale file left by an
    // epilog that did not run, files named by another index than NVML's), and every job
    // record and cost of the node is wrong.
    GPUSlurmJobMappingBroken: slurm {
      family: 'exporter',
      severity: 'warning',
      local withJob = e.fill('count by ($(node)) (group by ($(gpu)) ($(health)))', { node: byNode, gpu: gpu, health: health(e.match(l.job, '!=', '')) }),
      expr: e.fill(|||
        ($(withJob) or on ($(node)) 0 * $(allocated)) != on ($(node)) $(allocated)
        and on ($(node)) group by ($(node)) ($(health))
      |||, { withJob: withJob, node: byNode, allocated: allocated, health: health() }),
      'for': w.jobMapping,
      identity: node,
      summary: "The GPUs of a node that carry a Slurm job are not those Slurm lent: the exporter's job mapping is broken.",
      description: nodeText + ' has {{ $value }} GPUs with a job (' + l.job + ') on its series, not the number Slurm has lent to jobs there, for ' + w.jobMapping + ': its jobs are attributed and billed wrong.',
      tests: [
        t.case('Slurm lent a GPU and no series carries a job (no mapping file)', true, [], gpus=2, pod=false, extra=[nodeSeries('slurm_node_gpus_alloc', '1x60')], target={ [l.host]: t.scenarioHost }, value=0),
        t.case('a job on a GPU Slurm has given back (a stale file)', true, [], gpus=2, extra=[nodeSeries('slurm_node_gpus_alloc', '0x60')], target={ [l.host]: t.scenarioHost }, value=2),
        t.case('each GPU Slurm lent carries its job', false, [], gpus=2, extra=[nodeSeries('slurm_node_gpus_alloc', '2x60')]),
        t.case('a job that just started, its mapping written late', false, [], gpus=2, pod=false, extra=[nodeSeries('slurm_node_gpus_alloc', '0x50 2x10')]),
      ],
      runbook: {
        meaning: 'For ' + w.jobMapping + ", the number of the node's GPUs whose series carry a job (" + l.job + ') has not been the number slurmctld counts lent to jobs there.',
        impact: 'Job, user and account records and costs of the node are wrong: GPUs billed to nobody, or to a job that ended; job alerts name the wrong job.',
        queries: [
          rb.query('GPUs Slurm lent to jobs on the node', e.fill('slurm_node_gpus_alloc{job="$(job)"}', { job: s.job })),
          rb.query('Jobs on the GPUs of the node', e.fill('group by ($(gpu), $(job)) ($(health))', { gpu: gpu, job: l.job, health: health(e.fill('$(host)="$$(host)"', { host: l.host })) })),
        ],
        diagnosis: [
          rb.step("Is the exporter's mapping directory (--hpc-job-mapping-dir) empty while `squeue -w $" + l.host + '` lists jobs?', 'The prolog does not write the files: check its log and that it runs on the node (Prolog= in slurm.conf).', ''),
          rb.step('Does a file there name a job `squeue` no longer lists?', 'The epilog did not remove it: remove the file and fix the epilog.', ''),
          rb.step('Are the files named by CUDA_VISIBLE_DEVICES values that are UUIDs or cgroup-relative indexes?', "Write the files under NVML's index of each GPU (`nvidia-smi --query-gpu=index,uuid --format=csv`).", "Compare each job's GPUs in `scontrol show job -d` with the files: the prolog maps them wrong."),
        ],
        mitigation: ["Fix the prolog or epilog; the alert resolves once the files match Slurm's allocation."],
        escalation: rb.escalation.infra,
        dashboards: ['L2'],
      },
    },

    // A GPU mapped to a job idles while a GPU of the same node that no job holds computes:
    // the job runs on another GPU than its files name (a cgroup-relative index or a device
    // minor number read as NVML's index), and its alerts and bill follow the wrong GPU.
    GPUSlurmJobOnWrongGPU: slurm {
      family: 'exporter',
      severity: 'warning',
      local active(matcher, op, threshold) = e.fill('group by ($(node)) (DCGM_FI_PROF_GR_ENGINE_ACTIVE{$(matcher)} $(op) $(threshold))', {
        node: byNode,
        matcher: matcher,
        op: op,
        threshold: e.num(threshold),
      }),
      expr: e.fill(|||
        $(idleMapped)
        and on ($(node))
        $(busyUnmapped)
      |||, {
        idleMapped: active(e.match(l.job, '!=', ''), '<', $.thresholds.idleActivity),
        node: byNode,
        busyUnmapped: active(e.match(l.job, '=', ''), '>', $.thresholds.unmappedBusyActivity),
      }),
      'for': w.jobMapping,
      identity: node,
      summary: 'A GPU a Slurm job holds idles while a GPU no job holds computes: the job mapping names the wrong GPU.',
      local idle = e.percent($.thresholds.idleActivity),
      local busy = e.percent($.thresholds.unmappedBusyActivity),
      description: nodeText + ' has had a GPU with a job (' + l.job + ') under ' + idle + ' % engine activity and a GPU without one over ' + busy + ' % for ' + w.jobMapping + '.',
      local activity(values, labels) = t.series('DCGM_FI_PROF_GR_ENGINE_ACTIVE', values + 'x60', labels),
      local mapped = { entities: [0] },
      tests: [
        t.case(
          'the job computes on the GPU its file does not name',
          true,
          [activity('0.01', { [l.job]: '4117219' }) + mapped, activity('0.9', {}) + { entities: [1] }],
          gpus=2,
          pod=false,
          target={ [l.host]: t.scenarioHost },
          value=1,
        ),
        t.case('the job computes on its GPU', false, [activity('0.9', { [l.job]: '4117219' }) + mapped, activity('0.01', {}) + { entities: [1] }], gpus=2, pod=false),
        t.case('a job idle on its GPU, nothing else busy', false, [activity('0.01', { [l.job]: '4117219' }) + mapped, activity('0.01', {}) + { entities: [1] }], gpus=2, pod=false),
      ],
      runbook: {
        meaning: 'For ' + w.jobMapping + ', a GPU whose series carry a job has been idle while a GPU of the node whose series carry none has computed.',
        impact: "The job's GPU alerts and its bill follow a GPU it does not use; the GPU it uses is billed to nobody and its faults name no job.",
        queries: [
          rb.query('Engine activity and job of each GPU of the node', e.fill('DCGM_FI_PROF_GR_ENGINE_ACTIVE{$(host)="$$(host)"}', { host: l.host })),
        ],
        diagnosis: [
          rb.step("Does `nvidia-smi` on the node show the job's processes on another GPU than its mapping file names (`scontrol show job -d <job>`: its GRES IDX)?", "The prolog writes the files under another index than NVML's (a cgroup-relative index, a device minor number, or UUIDs in CUDA_VISIBLE_DEVICES): write each file under the GPU's NVML index (`nvidia-smi --query-gpu=index,uuid,pci.bus_id --format=csv`).", 'A process outside Slurm computes on the unmapped GPU: find and stop it.'),
        ],
        mitigation: ["Fix the prolog's mapping; the alert resolves once the busy GPU carries its job."],
        escalation: rb.escalation.infra,
        dashboards: ['L3'],
      },
    },

    // Slurm's own metrics or the node-state source are gone for a cluster: inventory,
    // allocation, the GPU-count and job-mapping checks go blind, and the drain inhibition
    // loses its source: this ticket silences what the drain would, in its cluster.
    GPUSlurmMetricsDown: slurm {
      family: 'node',
      severity: 'warning',
      local gone(series, job) = e.fill(|||
        (
            group by ($(cluster)) (last_over_time($(series)[$(window)]))
          unless on ($(cluster))
            group by ($(cluster)) ($(series))
        )
        or on ($(cluster))
          (max by ($(cluster)) (up{job="$(job)"}) == 0)
      |||, { cluster: l.cluster, series: series, window: w.missing, job: job }),
      local ctld = e.fill('slurm_node_gpus{job="$(job)"}', { job: s.job }),
      expr: if s.nodeState.source == 'none' then gone(ctld, s.job)
      else e.fill('$(ctld)\nor on ($(cluster))\n$(state)', { ctld: gone(ctld, s.job), cluster: l.cluster, state: gone($.nodes.stateSeries, s.nodeState.job) }),
      'for': '10m',
      identity: [l.cluster],
      summary: "Slurm's metrics or its node-state exporter stopped reporting a cluster.",
      local inService = if s.nodeState.source == 'none' then [] else [$.nodes.inServiceSeries(t.scenarioHost)],
      local stateText = if s.nodeState.source == 'none' then '' else ' or the node-state exporter (job ' + s.nodeState.job + ')',
      description: "Slurm's metrics (job " + s.job + ')' + stateText + ' have been down, or have reported no node of cluster {{ $labels.' + l.cluster + ' }} they reported within ' + w.missing + ', for ' + self['for'] + ': the GPU-count and job-mapping checks cannot fire there, and the alerts a drain would silence are silenced by this one instead.',
      tests: [
        t.case("slurmctld's metrics stopped", true, [], extra=[nodeSeries('slurm_node_gpus', '1x30 _x30')], target={}, value=1),
        t.case("slurmctld's metrics target down", true, [], extra=[nodeSeries('slurm_node_gpus', '1x30 _x30'), t.series('up', '1x30 0x30', { job: s.job, instance: 'slurmctld:6817' })], target={}, value=1),
        t.case(
          'Slurm reports the node',
          false,
          [],
          extra=[nodeSeries('slurm_node_gpus', '1x60'), t.series('up', '1x60', { job: s.job, instance: 'slurmctld:6817' })] + inService,
        ),
      ] + (if s.nodeState.source == 'none' then [] else [
             t.case('the node-state exporter stopped', true, [], extra=[nodeSeries('slurm_node_gpus', '1x60'), $.nodes.inServiceSeries(t.scenarioHost) { values: '1x30 _x30' }], target={}, value=1),
           ]),
      runbook: {
        meaning: 'No ' + s.job + ' series (slurmctld, MetricsType=metrics/openmetrics)' + (if s.nodeState.source == 'none' then '' else ' or no node-state series (' + s.nodeState.source + ', job ' + s.nodeState.job + ')') + ' for the cluster: the source is down, not scraped, or reports nothing.',
        impact: 'The GPU-count and job-mapping checks and the job-count records are blind in the cluster, and the drain inhibition has no source; while this ticket fires, it silences the alerts a drain would (' + std.join(', ', $.alertmanager.inhibit.nodeUnschedulableFamilies) + ' families) so that a drained node does not ticket.',
        queries: [
          rb.query('Are the sources scraped and up', e.fill('up{job=~"$(jobs)"}', { jobs: std.join('|', std.set([s.job, s.nodeState.job])) })),
          rb.query('Nodes Slurm reports per cluster', e.fill('count by ($(cluster)) ($(ctld))', { cluster: l.cluster, ctld: e.fill('slurm_node_gpus{job="$(job)"}', { job: s.job }) })),
        ],
        diagnosis: [
          rb.step('Is up{job="' + s.job + '"} 0 or absent?', "slurmctld is down or not scraped: check `scontrol ping`, slurm.conf's MetricsType=metrics/openmetrics and the scrape configuration.", ''),
          rb.step('Does `curl http://<slurmctld>:6817/metrics/nodes` list the nodes?', 'Check the node-state exporter (job ' + s.nodeState.job + ') the same way.', 'slurmctld serves no node metrics: Slurm before 25.11 has none; upgrade or switch the Slurm section off.'),
        ],
        mitigation: ['Restart or fix the source; the ticket resolves once it reports the nodes again.'],
        escalation: rb.escalation.infra,
        dashboards: ['L2'],
      },
    },
  },
}
