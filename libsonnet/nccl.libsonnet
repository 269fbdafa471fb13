// NCCL's own telemetry: NCCL Inspector, NCCL's profiler plugin (plugins/profiler/inspector),
// with NCCL_INSPECTOR_PROM_DUMP=1 writes one textfile per GPU (nccl_inspector_metrics_<uuid>.prom
// in NCCL_INSPECTOR_DUMP_DIR) that node_exporter's textfile collector serves. The section nccl
// is off unless a catalog switches it on (enabled+: { nccl: true }).
//
// What the writer does (inspector_prom.cc), and what the rules make of it:
// - each sample is one dump window's aggregate (the mean execution time, the geometric mean bus
//   bandwidth of the collectives completed since the last dump, at least 30 s apart), per
//   communicator (comm_name), collective, message size bucket and algorithm, not a counter;
// - node is gethostname(): on Kubernetes the pod's name, which joins dcgm-exporter's pod
//   attribution; gpu is "GPU<n>", the CUDA device index inside the pod (CUDA_VISIBLE_DEVICES
//   renumbers it), which joins no physical GPU, so the rules join by pod;
// - there is no rank label: a rank is its pod and its GPU;
// - a GPU with nothing new keeps its file untouched, old values included (a checkpoint pause,
//   a job that crashed), and node_exporter serves them on: a rank's own value is read only
//   where its pod's file was written within windows.ncclFresh (node_exporter's mtime of
//   nccl_inspector_metrics_<UUID>.prom, the GPU dcgm-exporter attributes to the pod), which
//   reads one series a GPU rather than every series' recent samples; medians and percentiles
//   across ranks read every series (a stale rank's last window was measured; a crashed job's
//   ranks are all stale, and none is read). The plugin deletes its files when the job ends
//   cleanly;
// - nranks is the communicator's size: the straggler test reads communicators of
//   thresholds.ncclStragglerMinRanks or more.
// comm_name × collective × message_size × algo_proto is large: keep the dump directory to the
// training nodes, and metrics.<name>.labels says what each series carries.
local e = import 'lib/expr.libsonnet';
local names = import 'lib/names.libsonnet';
local t = import 'lib/test.libsonnet';
{
  nccl:: {
    // The scrape job of the node_exporter that serves the inspector's files.
    job: 'node-exporter',
    // The label the inspector names the writing host by (the pod's name on Kubernetes); a
    // scrape config that also sets a target label node makes it exported_node.
    podLabel: 'node',
    // The inspector's file names (node_exporter's file label), the GPU's UUID in the first
    // group: as CUDA gives it (cuDeviceGetUuid: lowercase hex, 8-4-4-4-12), after a job id in
    // builds that stream per job; uuidPrefix makes it dcgm-exporter's (NVML's) UUID label.
    file: '.*nccl_inspector_metrics_(?:job[^_]*_)?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})[.]prom',
    uuidPrefix: 'GPU-',
  },

  thresholds+: {
    // A rank whose mean execution time of a collective exceeds its communicator's median by
    // this factor is a straggler.
    ncclStragglerRatio: 1.5,
    // The fewest ranks (NCCL's nranks) a communicator has for the straggler test: of two, the
    // median is their mean, and the slow one cannot be told apart.
    ncclStragglerMinRanks: 3,
    // A collective whose bus bandwidth is below this share of what the same collective and
    // message size reach across the cluster (the most their ranks' 90th percentile reached
    // over windows.ncclBaseline), on GPUs busier than ncclBusySMActivity, is starved.
    ncclStarvedRatio: 0.5,
    ncclBusySMActivity: 0.5,
  },

  windows+: {
    // A rank whose file was not written in this window is one the writer left (a pause, a
    // crashed job): its series are not read.
    ncclFresh: '5m',
    // The window the bandwidth a collective can reach is learned over.
    ncclBaseline: '1d',
  },

  local l = $.labels,
  local nc = $.nccl,
  local th = $.thresholds,
  local w = $.windows,
  local exec = 'nccl_collective_exec_time_microseconds',
  local bandwidth = 'nccl_bus_bandwidth_gbs',
  // What each collective, message size and node count reaches across a cluster now: the 90th
  // percentile of its ranks' bus bandwidth. The starved-collective alert reads its maximum over
  // windows.ncclBaseline: a day of these few series, not of every rank's.
  local reached = 'cluster:nccl_bus_bandwidth_gbs:p90',
  // The pods whose GPUs' inspector files were written within windows.ncclFresh.
  local writing = 'pod:nccl_inspector_file:fresh',
  local size = [l.cluster, 'collective', 'message_size', 'n_nodes'],
  local collective = [l.cluster, 'comm_name', 'collective', 'message_size'],
  local rank = [nc.podLabel, 'gpu'],
  local sel = e.fill(|||
    {job="$(job)"}
  |||, { job: nc.job }),
  // The ranks of the pods in s (a vector by cluster and pod) under the inspector's label.
  local asRanks(s) = e.fill(|||
    label_replace($(s), "$(rank)", "$1", "$(pod)", "(.*)")
  |||, { s: s, rank: nc.podLabel, pod: l.pod }),

  metrics+: {
    local labels = [l.cluster, 'job', 'instance', 'version', 'slurm_job_id', nc.podLabel, 'gpu', 'comm_name', 'n_nodes', 'nranks', 'collective', 'message_size', 'algo_proto'],
    // What one rank (a pod's GPU) writes, for lint's cardinality budget: its communicators
    // (a 3D-parallel job's tensor, pipeline and data-parallel groups and the world), the
    // collectives each runs and the message sizes each moves; NCCL picks one algorithm and
    // protocol per collective and size. A rule or panel that keeps these labels multiplies
    // the ranks it reads by them: aggregate them away, or pin a job.
    local fanout = { comm_name: 4, collective: 2, message_size: 3 },
    [exec]: { section: 'nccl', type: 'gauge', labels: labels, fanout: fanout },
    [bandwidth]: { section: 'nccl', type: 'gauge', labels: labels, fanout: fanout },
    // The point-to-point twins (NCCL_INSPECTOR_ENABLE_P2P=1: a pipeline stage's sends and
    // receives), p2p_operation Send or Recv in place of the collective and its algorithm;
    // shown on L4, not alerted on. A rank talks to its pipeline neighbours over one or two
    // communicators.
    local p2pLabels = [l.cluster, 'job', 'instance', 'version', 'slurm_job_id', nc.podLabel, 'gpu', 'comm_name', 'n_nodes', 'nranks', 'p2p_operation', 'message_size'],
    local p2pFanout = { comm_name: 2, p2p_operation: 2, message_size: 3 },
    nccl_p2p_exec_time_microseconds: { section: 'nccl', type: 'gauge', labels: p2pLabels, fanout: p2pFanout },
    nccl_p2p_bus_bandwidth_gbs: { section: 'nccl', type: 'gauge', labels: p2pLabels, fanout: p2pFanout },
    // node_exporter's modification time of each textfile: the inspector's are named by the
    // GPU's UUID.
    node_textfile_mtime_seconds: { section: 'nccl', type: 'gauge', labels: [l.cluster, 'job', 'instance', 'file'] },
  },


  records+: {
    // In the group of the record it reads (which pod holds which GPU), evaluated after it.
    [writing]: {
      section: 'nccl',
      family: 'allocation',
      expr: e.fill(|||
        group by ($(cluster), $(namespace), $(pod)) (
          $(gpuInfo){$(pod)!=""}
          and on ($(cluster), $(uuid))
          label_replace(time() - node_textfile_mtime_seconds{job="$(job)", file=~"$(file)"} < $(fresh), "$(uuid)", "$(prefix)$1", "file", "$(file)")
        )
      |||, { cluster: l.cluster, namespace: l.namespace, pod: l.pod, uuid: l.uuid, gpuInfo: names.gpuInfo, job: nc.job, file: nc.file, prefix: nc.uuidPrefix, fresh: e.num(e.seconds(w.ncclFresh)) }),
    },
    [reached]: {
      section: 'nccl',
      family: 'network',
      expr: e.fill(|||
        quantile by ($(size)) (0.9, $(bandwidth))
      |||, { size: std.join(', ', size), bandwidth: bandwidth + sel }),
    },
  },

  alerts+: {
    local base = { section: 'nccl', family: 'network', team: $.teams['ml-platform'], severity: 'warning' },
    // The inspector's series of one rank, as node_exporter serves them.
    local series(metric, values, pod, extra={}) = t.series(metric, values, {
      job: nc.job,
      instance: t.scenarioHost,
      version: 'v4.1',
      slurm_job_id: 'unknown',
      [nc.podLabel]: pod,
      gpu: 'GPU0',
      comm_name: '0x7f3a9c1e5d20b4a1',
      n_nodes: '4',
      nranks: '4',
      collective: 'AllReduce',
      message_size: '128-129MB',
      algo_proto: 'RING_LL128',
    } + extra),
    local communicator = { comm_name: '0x7f3a9c1e5d20b4a1' },
    // node_exporter's mtime of the inspector's file of the scenario's GPU i: written every
    // minute, or until `minutes` and not since.
    local written(i, minutes=60) = t.series('node_textfile_mtime_seconds', '0+60x' + minutes + (if minutes < 60 then ' ' + (60 * minutes) + 'x' + (60 - minutes) else ''), {
      job: nc.job,
      instance: t.scenarioHost,
      file: '/var/lib/node_exporter/textfile_collector/nccl_inspector_metrics_' + t.scenarioUUID(i) + '.prom',
    }),

    // One ticket per rank and communicator (its slowest collective and size give the value):
    // a straggler is slow in all of them, and a ticket per collective and size would multiply
    // the series by the communicator's fan-out (metrics.<name>.fanout).
    GPUNcclStragglerRank: base {
      identity: [l.cluster, 'comm_name'] + rank,
      local communicators = e.fill(|||
        $(exec){job="$(job)", nranks!~"$(fewer)"}
      |||, { exec: exec, job: nc.job, fewer: std.join('|', [std.toString(n) for n in std.range(1, th.ncclStragglerMinRanks - 1)]) }),
      expr: e.fill(|||
        max by ($(id)) (
          $(communicators) / on ($(collective)) group_left () quantile by ($(collective)) (0.5, $(communicators))
        ) > $(ratio)
        and on ($(cluster), $(rank)) $(written)
      |||, { id: std.join(', ', [l.cluster, 'comm_name'] + rank), communicators: communicators, cluster: l.cluster, rank: nc.podLabel, written: asRanks(writing), collective: std.join(', ', collective), ratio: e.num(th.ncclStragglerRatio) }),
      'for': '15m',
      summary: 'One rank of a communicator runs a collective far slower than its peers: a straggler, measured by NCCL.',
      description: 'Rank {{ $labels.' + nc.podLabel + ' }} {{ $labels.gpu }} of communicator {{ $labels.comm_name }} (cluster {{ $labels.' + l.cluster + " }}) runs its slowest collective {{ $value | humanize }} × as long as the communicator's median rank (threshold " + e.num(th.ncclStragglerRatio) + ' ×): every rank waits for it.',
      // Four ranks, the pods of the scenario's four GPUs, each writing its file every minute;
      // the last one slow where straggler (each window's mean moves a little: the writer
      // rewrites its file every dump); stopped: the minute their files were last written.
      local member(i, values, stopped=60) = [series(exec, values, t.scenarioHost + '-' + i), written(i, stopped)],
      local ranks(slow, values='+1x60', stopped=60) = std.flattenArrays([member(i, (if i == 3 then slow else 1000) + values, stopped) for i in std.range(0, 3)]),
      local pair(slow, size) = std.flattenArrays([[series(exec, v[0] + '+1x60', t.scenarioHost + '-' + v[1], { nranks: size }), written(v[1])] for v in [['1000', 0], [slow, 1]]]),
      tests: [
        t.case('one rank takes three times its peers', true, [], gpus=4, extra=ranks(3000), target=communicator { [nc.podLabel]: '$host-3', gpu: 'GPU0' }, value=3060 / 1060),
        t.case('every rank alike', false, [], gpus=4, extra=ranks(1000)),
        t.case('a rank a little slower', false, [], gpus=4, extra=ranks(1200)),
        // The job crashed half an hour ago: its files stay, unchanged.
        t.case('the files of a crashed job', false, [], gpus=4, extra=ranks(3000, '+1x30 3030x30', 30)),
        // The slow rank's process died (its last window stays in its file) and the others go on.
        t.case('a rank that stopped writing', false, [], gpus=4, extra=std.flattenArrays([member(i, '1000+1x60') for i in std.range(0, 2)]) + member(3, '3000+1x30 3030x30', 30)),
        // Two ranks reporting, of a communicator smaller than thresholds.ncclStragglerMinRanks:
        // the median is their mean, the slow one's ratio to it is over the threshold, but
        // either may be the one the other waits for.
        t.case('a communicator below the fewest ranks', false, [], gpus=2, extra=pair('4000', std.toString(th.ncclStragglerMinRanks - 1))),
        t.case('two ranks of a larger communicator', true, [], gpus=2, extra=pair('4000', '16'), target=communicator { [nc.podLabel]: '$host-1', gpu: 'GPU0' }, value=4060 / 2560),
      ],
      runbook: {
        meaning: "NCCL Inspector measures one rank's mean execution time of a collective at more than " + e.num(th.ncclStragglerRatio) + ' times the median of its communicator (of ' + th.ncclStragglerMinRanks + ' ranks or more) for the same collective and message size, for ' + $.alerts.GPUNcclStragglerRank['for'] + '; the alert is per rank and communicator, valued by its slowest collective and size (the first query shows them all).' + " A rank is its pod (the inspector's " + nc.podLabel + " label, the pod's hostname) and its GPU (GPU<n>: the CUDA index inside the pod).",
        impact: 'Collectives are synchronous: every rank of the communicator waits for the slowest, so the whole job runs at its pace.',
        queries: [
          { title: "The communicator's ranks, by collective and message size", expr: e.fill(|||
            $(exec){$(cluster)="$$(cluster)", comm_name="$comm_name"}
          |||, { exec: exec, cluster: l.cluster }) },
          { title: "The slow rank's GPU (SM activity of its pod)", expr: e.fill(|||
            DCGM_FI_PROF_SM_ACTIVE{$(cluster)="$$(cluster)", $(pod)="$$(rank)"}
          |||, { cluster: l.cluster, pod: l.pod, rank: nc.podLabel }) },
        ],
        diagnosis: [
          { check: "Do GPU alerts fire for the slow rank's GPU (throttling, XID, NVLink errors, GPUTrainingStraggler)?", yes: 'Hardware: follow that runbook; restart the job without the node.', no: '' },
          { check: "Do InfiniBand alerts fire on the rank's node (GPUInfiniBandPortErrors, link flaps)?", yes: 'The network under that rank: fix the link, move the job.', no: 'Data or placement: a rank with more work, or on a node across a slower switch; give the owners the per-rank view.' },
        ],
        mitigation: ['Restart the job from its last checkpoint without the slow node.'],
        escalation: 'ML platform team; infrastructure on-call for a hardware cause.',
        dashboards: ['L4'],
      },
    },

    // One ticket per rank, communicator and collective (its worst message size gives the
    // value), for the same reason.
    GPUNcclCollectiveStarved: base {
      identity: [l.cluster, 'comm_name', 'collective'] + rank,
      local baseline = e.fill(|||
        max_over_time($(reached)[$(window)])
      |||, { reached: reached, window: w.ncclBaseline }),
      // The pods writing their files whose GPUs are busy.
      local busy = asRanks(e.fill(|||
        max by ($(cluster), $(pod)) (DCGM_FI_PROF_SM_ACTIVE) > $(busy) and on ($(cluster), $(pod)) $(writing)
      |||, { cluster: l.cluster, pod: l.pod, busy: e.num(th.ncclBusySMActivity), writing: writing })),
      expr: e.fill(|||
        min by ($(id)) (
          (
            $(measured) / on ($(size)) group_left () $(reached)
          ) < $(ratio)
          and on ($(cluster), $(rank)) $(busy)
        )
      |||, {
        id: std.join(', ', [l.cluster, 'comm_name', 'collective'] + rank),
        measured: bandwidth + sel,
        size: std.join(', ', size),
        reached: baseline,
        ratio: e.num(th.ncclStarvedRatio),
        cluster: l.cluster,
        rank: nc.podLabel,
        busy: busy,
      }),
      'for': '15m',
      summary: 'A collective moves far less data than the same collective and size reach elsewhere, while its GPUs are busy: starved by the network.',
      description: 'Rank {{ $labels.' + nc.podLabel + ' }} {{ $labels.gpu }} of communicator {{ $labels.comm_name }} (cluster {{ $labels.' + l.cluster + ' }}) reaches {{ $value | humanizePercentage }} of the bus bandwidth {{ $labels.collective }} reaches across the cluster at the same message size (its worst size; the most the 90th percentile of their ranks reached over ' + w.ncclBaseline + '), below ' + e.percent(th.ncclStarvedRatio) + ' %, while its GPUs are busy.',
      // A window's value alternating between a (the last) and b, minute by minute, for
      // `minutes` (the writer's windows differ a little from dump to dump).
      local alternating(a, b, minutes=60) = std.join(' ', [if i % 2 == minutes % 2 then a else b for i in std.range(0, minutes)]),
      // Nine other jobs' communicators reach 100 GB/s with the same collective and size.
      local elsewhere = [series(bandwidth, alternating('100', '99'), 'other-' + i, { comm_name: '0x1b2c3d4e5f6071' + i }) for i in std.range(0, 8)],
      local mine(values) = series(bandwidth, values, t.scenarioPod.pod),
      local gpus(activity) = [t.series('DCGM_FI_PROF_SM_ACTIVE', activity + 'x60')],
      tests: [
        t.case('a collective at a fifth of what it reaches elsewhere, GPUs busy', true, gpus(0.9), extra=elsewhere + [mine(alternating('20', '21')), written(0)], target=communicator { collective: 'AllReduce', [nc.podLabel]: t.scenarioPod.pod, gpu: 'GPU0' }, value=0.2),
        t.case('the same collective, GPUs idle (a checkpoint)', false, gpus(0.05), extra=elsewhere + [mine(alternating('20', '21')), written(0)]),
        t.case('a collective as fast as elsewhere', false, gpus(0.9), extra=elsewhere + [mine(alternating('95', '96')), written(0)]),
        // Its file stays, unchanged since the crash half an hour ago.
        t.case('the file of a job that crashed', false, gpus(0.9), extra=elsewhere + [mine(alternating('20', '21', 30) + ' 20x29'), written(0, 30)]),
      ],
      runbook: {
        meaning: "A rank's geometric mean bus bandwidth for a collective and message size is below " + e.percent(th.ncclStarvedRatio) + ' % of what the same collective and size (and node count) reach across the cluster over ' + w.ncclBaseline + ' (the alert is per rank, communicator and collective, valued by its worst size), while its GPUs are busier than ' + e.percent(th.ncclBusySMActivity) + ' % SM activity, for ' + $.alerts.GPUNcclCollectiveStarved['for'] + '.',
        impact: 'The job spends its time waiting on the network: step time grows while the GPUs look busy.',
        queries: [
          { title: "The communicator's bus bandwidth, by rank and message size (measured)", expr: e.fill(|||
            $(bandwidth){$(cluster)="$$(cluster)", comm_name="$comm_name", collective="$collective"}
          |||, { bandwidth: bandwidth, cluster: l.cluster }) },
          { title: 'What the same collective reaches across the cluster, by message size and node count (expected: what the alert compares with)', expr: e.fill(|||
            max_over_time($(reached){$(cluster)="$$(cluster)", collective="$collective"}[$(window)])
          |||, { reached: reached, cluster: l.cluster, window: w.ncclBaseline }) },
        ],
        diagnosis: [
          { check: "Do InfiniBand alerts fire on the ranks' nodes (errors, flaps)?", yes: 'Fix the link; move the job off the node.', no: '' },
          { check: 'Does the algorithm differ from elsewhere (algo_proto: RING against TREE or NVLS)?', yes: 'A topology or NCCL setting change (NCCL_ALGO, NCCL_PROTO, NCCL_IB_HCA): compare the environment.', no: 'Congestion from other jobs on the same switches: ask the network team for the port counters.' },
        ],
        mitigation: ['Move the job to nodes under one leaf switch, or away from the congested links.'],
        escalation: 'ML platform team; the network team.',
        dashboards: ['L4'],
      },
    },
  },
}
