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
// - comm_name is the name the framework gave the communicator (NCCL's config.commName), or
//   "unknown": the same in every job ("unknown", a process group's name, "DP Group 0"), and
//   the writer folds a GPU's communicators of one name into one series. A communicator is its
//   name within its job: the rules read the ranks of training jobs' pods (training.owners:
//   kube_pod_owner of training.ownerKinds) and compare a rank with the ranks of its own job;
// - execution time is the kernel's on the GPU (NCCL_INSPECTOR_REQUIRE_KERNEL_TIMING=1, the
//   default), and a collective's kernel starts when its rank reaches it and ends when every
//   rank has: the rank that arrives last, the straggler the others wait for, shows the
//   shortest time, and the ranks that wait show the longest (NVIDIA/nccl#460). Bus bandwidth
//   is computed from that time, so waiting ranks show less of it: the rank that waited least
//   measures what the network gave the collective;
// - a GPU with nothing new keeps its file untouched, old values included (a checkpoint pause,
//   a job that crashed), and node_exporter serves them on: a rank is read only where its
//   pod's file was written within windows.ncclFresh (node_exporter's mtime of
//   nccl_inspector_metrics_<UUID>.prom, the GPU dcgm-exporter attributes to the pod), which
//   reads one series a GPU rather than every series' recent samples, and the same join gives
//   each rank its job. The plugin deletes its files when the job ends cleanly;
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
    // A rank is a straggler when its communicator's median rank spends this many times as
    // long in a collective as it does: the median rank waits for it.
    ncclStragglerRatio: 1.5,
    // The fewest ranks (NCCL's nranks) a communicator has for the straggler test: of two, the
    // median is their mean, not a peer's time.
    ncclStragglerMinRanks: 3,
    // A communicator is starved when the most bus bandwidth any of its ranks measures for a
    // collective is below this share of what the same collective and message size reach
    // across the cluster (the most the communicators' 90th percentile reached over
    // windows.ncclBaseline), while its job's GPUs are busier than ncclBusySMActivity.
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
  // The job a rank belongs to: its pod's namespace and controller.
  local owner = [l.namespace, 'owner_kind', 'owner_name'],
  // A communicator: its name within its job, its size, and one collective and message size.
  local communicator = [l.cluster] + owner + ['comm_name', 'nranks', 'n_nodes', 'collective', 'message_size'],
  local rank = [nc.podLabel, 'gpu'],
  // The pods of training jobs (training.owners), labelled with their job, whose GPUs'
  // inspector files were written within windows.ncclFresh.
  local writing = 'pod:nccl_inspector_file:fresh',
  // The most bus bandwidth a rank of each communicator measures: the rank that waited least
  // for the others.
  local best = 'communicator:nccl_bus_bandwidth_gbs:max',
  // What each collective, message size and node count reaches across a cluster now: the 90th
  // percentile of the communicators' best. The starved-collective alert reads its maximum over
  // windows.ncclBaseline: a day of these few series, not of every rank's.
  local reached = 'cluster:nccl_bus_bandwidth_gbs:p90',
  local size = [l.cluster, 'collective', 'message_size', 'n_nodes'],
  // The GPUs of training jobs, labelled with their job, and their SM activity (the straggler
  // record): how busy a job is.
  local jobs = names.trainingActivity(w.straggler),
  // The fresh pods of training jobs (writing, or a selection of it) under the inspector's
  // label for a rank.
  local asRanks(pods) = e.fill(|||
    label_replace($(pods), "$(rank)", "$1", "$(pod)", "(.*)")
  |||, { pods: pods, rank: nc.podLabel, pod: l.pod }),
  // The series of selector of the live ranks of training jobs, each labelled with its job.
  local ranks(selector) = e.fill(|||
    (
      $(selector)
      * on ($(cluster), $(rank)) group_left ($(owner))
        $(ranks)
    )
  |||, { selector: selector, cluster: l.cluster, rank: nc.podLabel, owner: std.join(', ', owner), ranks: asRanks(writing) }),
  // For a runbook: the series of selector of the live ranks of the alert's job.
  local ranksOfTheJob(selector) = e.fill(|||
    $(selector)
    and on ($(cluster), $(rank))
      $(ranks)
  |||, { selector: selector, cluster: l.cluster, rank: nc.podLabel, ranks: asRanks(e.fill(|||
    $(writing){$(namespace)="$$(namespace)", owner_name="$owner_name"}
  |||, { writing: writing, namespace: l.namespace })) }),

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
    // In the group of the record it reads (which pod holds which GPU), evaluated after it. It
    // needs no profiling field: dcgm-exporter's stock counters attribute GPUs to pods.
    [writing]: {
      section: 'nccl',
      family: 'allocation',
      expr: e.fill(|||
        group by ($(pod)) (
            $(gpuInfo){$(podLabel)!=""}
          * on ($(pods)) group_left ($(controller))
            max by ($(pods), $(controller)) ($(owners))
          and on ($(cluster), $(uuid))
            label_replace(time() - node_textfile_mtime_seconds{job="$(job)", file=~"$(file)"} < $(fresh), "$(uuid)", "$(prefix)$1", "file", "$(file)")
        )
      |||, {
        pod: std.join(', ', [l.cluster, l.pod] + owner),
        gpuInfo: names.gpuInfo,
        podLabel: l.pod,
        pods: std.join(', ', [l.cluster, l.namespace, l.pod]),
        controller: 'owner_kind, owner_name',
        owners: $.training.owners,
        cluster: l.cluster,
        uuid: l.uuid,
        job: nc.job,
        file: nc.file,
        prefix: nc.uuidPrefix,
        fresh: e.num(e.seconds(w.ncclFresh)),
      }),
    },
    // In the same group, after the records they read (another group's would be read a
    // cycle late).
    [best]: {
      section: 'nccl',
      family: 'allocation',
      expr: e.fill(|||
        max by ($(communicator)) ($(ranks))
      |||, { communicator: std.join(', ', communicator), ranks: ranks(e.fill(|||
        $(bandwidth){job="$(job)"}
      |||, { bandwidth: bandwidth, job: nc.job })) }),
    },
    [reached]: {
      section: 'nccl',
      family: 'allocation',
      expr: e.fill(|||
        quantile by ($(size)) (0.9, $(best))
      |||, { size: std.join(', ', size), best: best }),
    },
  },

  alerts+: {
    local base = { section: 'nccl', family: 'network', team: $.teams['ml-platform'], severity: 'warning' },
    // The scenarios' training job, and its labels on an alert.
    local job = 'llama-70b-pretrain',
    local ofJob = { owner_kind: $.training.scenarioKind, owner_name: job },
    // The inspector's series of one rank, as node_exporter serves them.
    local series(metric, values, pod, extra={}) = t.series(metric, values, {
      job: nc.job,
      instance: t.scenarioHost,
      version: 'v4.1',
      slurm_job_id: 'unknown',
      [nc.podLabel]: pod,
      gpu: 'GPU0',
      comm_name: 'DP Group 0',
      n_nodes: '4',
      nranks: std.toString(std.max(4, th.ncclStragglerMinRanks)),
      collective: 'AllReduce',
      message_size: '128-129MB',
      algo_proto: 'RING_LL128',
    } + extra),
    local named = { comm_name: 'DP Group 0' },
    // The scenario's pod i.
    local pod(i) = t.scenarioHost + '-' + i,
    // node_exporter's mtime of the inspector's file of the scenario's GPU i: written every
    // minute, or until `minutes` and not since.
    local written(i, minutes=60) = t.series('node_textfile_mtime_seconds', '0+60x' + minutes + (if minutes < 60 then ' ' + (60 * minutes) + 'x' + (60 - minutes) else ''), {
      job: nc.job,
      instance: t.scenarioHost,
      file: '/var/lib/node_exporter/textfile_collector/nccl_inspector_metrics_' + t.scenarioUUID(i) + '.prom',
    }),
    // kube-state-metrics' owner of the scenario's pod i: a training job of its own.
    local ownedBy(i, name) = t.series('kube_pod_owner', '1x60', e.ksm($.kubeStateMetrics.job, {
      namespace: t.scenarioPod.namespace,
      pod: pod(i),
      uid: 'uid-' + i,
      owner_kind: ofJob.owner_kind,
      owner_name: name,
      owner_is_controller: 'true',
    })),
    // A value held for the scenario's hour.
    local steady(value) = e.num(value) + 'x60',
    // The scenario's GPUs, as busy as activity: busy halfway between
    // thresholds.ncclBusySMActivity and all the time, idle at a tenth of it.
    local busy = (1 + th.ncclBusySMActivity) / 2,
    local idle = th.ncclBusySMActivity / 10,
    local busyAt(activity) = [t.series('DCGM_FI_PROF_SM_ACTIVE', e.num(activity) + 'x60')],
    local training(name, fires, extra, gpus=4, activity=busy, target=null, value=null) = t.case(name, fires, busyAt(activity), gpus=gpus, owner=job, ownerKind=ofJob.owner_kind, extra=extra, target=target, value=value),

    // One ticket per rank and communicator (its worst collective and size give the value): a
    // straggler is late to all of them, and a ticket per collective and size would multiply
    // the series by the communicator's fan-out (metrics.<name>.fanout).
    GPUNcclStragglerRank: base {
      identity: [l.cluster] + owner + ['comm_name'] + rank,
      local ranked = ranks(e.fill(|||
        $(exec){job="$(job)", nranks!~"$(fewer)"}
      |||, { exec: exec, job: nc.job, fewer: std.join('|', [std.toString(n) for n in std.range(1, th.ncclStragglerMinRanks - 1)]) })),
      expr: e.fill(|||
        max by ($(id)) (
            quantile by ($(communicator)) (0.5, $(ranked))
          / on ($(communicator)) group_right ()
            $(ranked)
        ) > $(ratio)
      |||, { id: std.join(', ', [l.cluster] + owner + ['comm_name'] + rank), communicator: std.join(', ', communicator), ranked: ranked, ratio: e.num(th.ncclStragglerRatio) }),
      'for': '15m',
      summary: 'The other ranks of a communicator wait for one rank at every collective: a straggler, measured by NCCL.',
      description: 'The median rank of communicator {{ $labels.comm_name }} of {{ $labels.owner_kind }} {{ $labels.' + l.namespace + ' }}/{{ $labels.owner_name }} (cluster {{ $labels.' + l.cluster + ' }}) spends {{ $value | humanize }} × as long in a collective as rank {{ $labels.' + nc.podLabel + ' }} {{ $labels.gpu }} (threshold ' + e.num(th.ncclStragglerRatio) + ' ×): it waits for that rank, which reaches the collective last.',
      // The ranks that wait spend peers µs in a collective, each window's mean moving a
      // little (the writer rewrites its file every dump), until minute `stopped`, unchanged
      // since; a late rank spends 1/(4 × thresholds.ncclStragglerRatio) of that (its peers wait
      // for it), a slightly late one 1/sqrt(ratio) (they wait less than the threshold).
      local peers = 3000,
      local late = peers / (4 * th.ncclStragglerRatio),
      local slightly = peers / std.sqrt(th.ncclStragglerRatio),
      local waiting(stopped=60) = peers + '+1x' + stopped + (if stopped < 60 then ' ' + (peers + stopped) + 'x' + (60 - stopped) else ''),
      // GPU i's rank, its file written until minute `stopped`.
      local member(i, values, stopped=60, extra={}) = [series(exec, values, pod(i), extra), written(i, stopped)],
      // Four ranks, the pods of the scenario's four GPUs of one training job: the last one's
      // values and the others'.
      local four(last, others, stopped=[60, 60, 60, 60]) = std.flattenArrays([member(i, if i == 3 then last else others, stopped[i]) for i in std.range(0, 3)]),
      local pair(size) = member(0, waiting(), extra={ nranks: size }) + member(1, steady(late), extra={ nranks: size }),
      local target = named + ofJob { [l.namespace]: t.scenarioPod.namespace, gpu: 'GPU0' },
      tests: [
        training('one rank reaches every collective last: its peers wait', true, four(steady(late), waiting()), target=target { [nc.podLabel]: '$host-3' }, value=(peers + 60) / late),
        // dcgm-exporter on its stock counters, without SM activity: the ranks are found all
        // the same, by the GPUs' pods.
        t.case("one rank late, on the exporter's stock counters", true, [], gpus=4, owner=job, ownerKind=ofJob.owner_kind, counterFile=false, extra=four(steady(late), waiting()), target=target { [nc.podLabel]: '$host-3' }, value=(peers + 60) / late, alsoFires=[t.also('DCGMExporterStockCounterSet', 1, target={})]),
        training('every rank alike', false, four(waiting(), waiting())),
        training('a rank a little late', false, four(steady(slightly), waiting())),
        // Its peers wait for none: the slow one is the first to arrive, which reads the
        // longest time (it waits for the others).
        training('one rank arrives first and waits', false, four(waiting(), steady(late))),
        // The job crashed half an hour ago: its files stay, unchanged.
        training('the files of a crashed job', false, four(steady(late), waiting(30), [30, 30, 30, 30])),
        // The late rank's process died (its last window stays in its file) and the others'
        // files go on being written.
        training('a rank that stopped writing', false, four(steady(late), waiting(), [60, 60, 60, 30])),
        // Two ranks reporting, of a communicator smaller than thresholds.ncclStragglerMinRanks:
        // the median is their mean, not a peer's time.
        training('a communicator below the fewest ranks', false, pair(std.toString(th.ncclStragglerMinRanks - 1)), gpus=2),
        training('two ranks of a larger communicator', true, pair('16'), gpus=2, target=target { [nc.podLabel]: '$host-1' }, value=(peers + 60 + late) / 2 / late),
        // Two jobs of even ranks whose communicators have the same name: the ranks of one wait
        // far longer than the other's at every collective, and neither has a straggler.
        local each = std.max(3, th.ncclStragglerMinRanks);
        t.case('the same communicator name in two jobs', false, busyAt(busy), gpus=2 * each, extra=std.flattenArrays([
          member(i, if i < each then waiting() else steady(late), extra={ nranks: std.toString(each) }) + [ownedBy(i, if i < each then job else 'mistral-7b-sft')]
          for i in std.range(0, 2 * each - 1)
        ])),
      ],
      runbook: {
        meaning: 'NCCL Inspector measures the median rank of a communicator (of ' + th.ncclStragglerMinRanks + ' ranks or more, within one training job) spending more than ' + e.num(th.ncclStragglerRatio) + ' times as long in a collective as one rank, for the same collective and message size, for ' + $.alerts.GPUNcclStragglerRank['for'] + ": a collective's kernel ends when every rank has reached it, so the ranks that arrive early wait and the one that arrives last, the straggler, shows the shortest time. The alert is per rank and communicator, valued by its worst collective and size (the first query shows them all). A rank is its pod (the inspector's " + nc.podLabel + " label, the pod's hostname) and its GPU (GPU<n>: the CUDA index inside the pod).",
        impact: 'Collectives are synchronous: every rank of the communicator waits for the last to arrive, so the whole job runs at its pace.',
        queries: [
          { title: "The communicator's ranks, by collective and message size (the straggler's time is the shortest)", expr: ranksOfTheJob(e.fill(|||
            $(exec){$(cluster)="$$(cluster)", comm_name="$comm_name"}
          |||, { exec: exec, cluster: l.cluster })) },
          { title: "The late rank's GPU (SM activity of its pod)", expr: e.fill(|||
            DCGM_FI_PROF_SM_ACTIVE{$(cluster)="$$(cluster)", $(pod)="$$(rank)"}
          |||, { cluster: l.cluster, pod: l.pod, rank: nc.podLabel }) },
        ],
        diagnosis: [
          { check: "Do GPU alerts fire for the late rank's GPU (throttling, XID, NVLink errors, GPUTrainingStraggler)?", yes: 'Hardware: follow that runbook; restart the job without the node.', no: '' },
          { check: "Is the late rank's host busy with something else (CPU, input pipeline, a noisy neighbour)?", yes: 'Its data loading or host: give the owners the per-rank view.', no: 'More work on that rank (uneven shards, a rank-local branch): give the owners the per-rank view.' },
        ],
        mitigation: ['Restart the job from its last checkpoint without the late node.'],
        escalation: 'ML platform team; infrastructure on-call for a hardware cause.',
        dashboards: ['L4'],
      },
    },

    // One ticket per communicator and collective (its worst message size gives the value):
    // in a synchronous collective every rank moves at the pace of the slowest link, and a
    // ticket per rank would multiply one starved ring by its ranks.
    GPUNcclCollectiveStarved: base {
      identity: [l.cluster] + owner + ['comm_name', 'collective'],
      local baseline = e.fill(|||
        max_over_time($(reached)[$(window)])
      |||, { reached: reached, window: w.ncclBaseline }),
      // The training jobs whose GPUs are busy.
      local busy = e.fill(|||
        avg by ($(job)) ($(jobs)) > $(busy)
      |||, { job: std.join(', ', [l.cluster] + owner), jobs: jobs, busy: e.num(th.ncclBusySMActivity) }),
      expr: e.fill(|||
        min by ($(id)) (
          $(best) / on ($(size)) group_left () $(reached)
        ) < $(ratio)
        and on ($(job)) $(busy)
      |||, {
        id: std.join(', ', [l.cluster] + owner + ['comm_name', 'collective']),
        best: best,
        size: std.join(', ', size),
        reached: baseline,
        ratio: e.num(th.ncclStarvedRatio),
        job: std.join(', ', [l.cluster] + owner),
        busy: busy,
      }),
      'for': '15m',
      summary: 'A collective moves far less data than the same collective and size reach elsewhere, while its GPUs are busy: starved by the network.',
      description: 'Communicator {{ $labels.comm_name }} of {{ $labels.owner_kind }} {{ $labels.' + l.namespace + ' }}/{{ $labels.owner_name }} (cluster {{ $labels.' + l.cluster + ' }}) reaches {{ $value | humanizePercentage }} of the bus bandwidth {{ $labels.collective }} reaches across the cluster at the same message size (its worst size, measured by the rank that waited least; the most the 90th percentile of the communicators reached over ' + w.ncclBaseline + '), below ' + e.percent(th.ncclStarvedRatio) + " %, while the job's GPUs are busy.",
      // A window's value alternating between a (the last) and b, minute by minute, for
      // `minutes` (the writer's windows differ a little from dump to dump). The starved
      // communicator's firing value stays put: the alert reads it from a record, which
      // promtool may evaluate before or after the alert.
      local alternating(a, b, minutes=60) = std.join(' ', [if i % 2 == minutes % 2 then a else b for i in std.range(0, minutes)]),
      // GPU i's rank, in communicator name, writing its file every minute (or until `minutes`).
      local member(i, values, name, minutes=60) = [series(bandwidth, values, pod(i), { comm_name: name }), written(i, minutes)],
      // Three other communicators of the job, on GPUs 1 to 3, reach `reach` GB/s with the same
      // collective and size; a starved one reaches 0.4 × thresholds.ncclStarvedRatio of it, a
      // fast one halfway between the threshold and all of it.
      local reach = 100,
      local starvedAt = reach * th.ncclStarvedRatio * 0.4,
      local fastAt = reach * (1 + th.ncclStarvedRatio) / 2,
      local around(value, minutes=60) = alternating(e.num(value), e.num(value + 1), minutes),
      local elsewhere = std.flattenArrays([member(i, around(reach - 1), 'TP Group ' + i) for i in std.range(1, 3)]),
      local starved = named + ofJob { collective: 'AllReduce', [l.namespace]: t.scenarioPod.namespace },
      tests: [
        training('a collective at a fraction of what it reaches elsewhere, GPUs busy', true, elsewhere + member(0, steady(starvedAt), 'DP Group 0'), target=starved, value=starvedAt / reach),
        training('the same collective, GPUs idle (a checkpoint)', false, elsewhere + member(0, around(starvedAt), 'DP Group 0'), activity=idle),
        training('a collective as fast as elsewhere', false, elsewhere + member(0, around(fastAt), 'DP Group 0')),
        // Its file stays, unchanged since the crash half an hour ago.
        training('the file of a job that crashed', false, elsewhere + member(0, around(starvedAt, 30) + ' ' + e.num(starvedAt) + 'x29', 'DP Group 0', 30)),
        // Two ranks of one communicator: the one that arrived first waited for the other and
        // measures a fraction of the bandwidth; the late one measures what the network gave.
        training('a rank that waited for a late one', false, std.flattenArrays([member(i, around(reach - 1), 'TP Group ' + i) for i in std.range(2, 3)]) + member(0, around(starvedAt), 'DP Group 0') + member(1, around(reach - 1), 'DP Group 0')),
      ],
      runbook: {
        meaning: 'The most bus bandwidth any rank of a communicator (within one training job) measures for a collective and message size is below ' + e.percent(th.ncclStarvedRatio) + ' % of what the same collective and size (and node count) reach across the cluster over ' + w.ncclBaseline + " (the 90th percentile of the communicators' best; the alert is per communicator and collective, valued by its worst size), while the job's GPUs are busier than " + e.percent(th.ncclBusySMActivity) + ' % SM activity on average, for ' + $.alerts.GPUNcclCollectiveStarved['for'] + '. The rank that waited least for the others measures what the network gave the collective: ranks that wait for a late one measure less, and a straggler alone does not make a communicator starved.',
        impact: 'The job spends its time waiting on the network: step time grows while the GPUs look busy.',
        queries: [
          { title: "The communicator's bus bandwidth, by rank and message size (measured)", expr: ranksOfTheJob(e.fill(|||
            $(bandwidth){$(cluster)="$$(cluster)", comm_name="$comm_name", collective="$collective"}
          |||, { bandwidth: bandwidth, cluster: l.cluster })) },
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
