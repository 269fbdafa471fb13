// NCCL Inspector's alerts: a rank whose collectives run well behind its communicator's ranks
// (a straggler), and a collective whose best rank reaches well below what the cluster reaches
// (a starved link); the measurements, and how the rules read them, are in inspector.libsonnet.
local e = import '../lib/expr.libsonnet';
local ncclLib = import '../lib/nccl.libsonnet';
local t = import '../lib/test.libsonnet';
{
  local n = ncclLib($),
  local l = $.labels,
  local nc = $.nccl,
  local th = $.thresholds,
  local w = $.windows,
  local exec = n.exec,
  local bandwidth = n.bandwidth,
  local owner = n.owner,
  local communicator = n.communicator,
  local rank = n.rank,
  local best = n.best,
  local reached = n.reached,
  local size = n.size,
  local jobs = n.jobs,
  local ranks = n.ranks,
  local ranksOfTheJob = n.ranksOfTheJob,
  // What a rank runs on: a pod, or a host of its Slurm job.
  local rankText = if n.slurm then 'host' else 'pod',

  alerts+: {
    local base = { section: 'nccl', family: 'network', team: $.teams['ml-platform'], severity: 'warning' },
    // The scenarios' training job, and its labels on an alert (on Slurm, the job the
    // scenario's GPUs are mapped to and the inspector names).
    local job = 'llama-70b-pretrain',
    local ofJob = if n.slurm then { [l.job]: job } else { owner_kind: $.training.scenarioKind, owner_name: job, [l.namespace]: t.scenarioPod.namespace },
    // The inspector's series of one rank, as node_exporter serves them.
    local series(metric, values, i, extra={}) = t.series(metric, values, {
      job: nc.job,
      instance: t.scenarioHost,
      version: 'v4.1',
      slurm_job_id: if n.slurm then job else 'unknown',
      comm_name: 'DP Group 0',
      n_nodes: '4',
      nranks: std.toString(std.max(4, th.ncclStragglerMinRanks)),
      collective: 'AllReduce',
      message_size: '128-129MB',
      algo_proto: 'RING_LL128',
    } + rankOf(i) + extra),
    local named = { comm_name: 'DP Group 0' },
    // The scenario's pod i.
    local pod(i) = t.scenarioHost + '-' + i,
    // The inspector's labels of the rank on the scenario's GPU i: a pod of its own seeing one
    // GPU, or on Slurm the host, which sees its GPUs by index.
    local rankOf(i) = if n.slurm then { [nc.podLabel]: t.scenarioHost, gpu: 'GPU' + i } else { [nc.podLabel]: pod(i), gpu: 'GPU0' },
    // node_exporter's mtime of the inspector's file of the scenario's GPU i: written every
    // minute, or until `minutes` and not since.
    local written(i, minutes=60) = t.series('node_textfile_mtime_seconds', t.risingFor(60, minutes), {
      job: nc.job,
      instance: t.scenarioHost,
      file: '/var/lib/node_exporter/textfile_collector/nccl_inspector_metrics_' + t.scenarioUUID(i) + '.prom',
    }),
    // kube-state-metrics' owner of the scenario's pod i: a training job of its own (none on
    // Slurm, where the GPUs' mapping names the job).
    local ownedBy(i, name) = $.training.scenarioOwnerSeries(name, pod(i)),
    // A value held for the scenario's hour.
    local steady(value) = e.num(value) + 'x60',
    // The scenario's GPUs, as tensor-active as activity: a communication-bound job computes
    // at four times thresholds.ncclMinTensorActivity, a checkpoint at a tenth of it.
    local busy = 4 * th.ncclMinTensorActivity,
    local idle = th.ncclMinTensorActivity / 10,
    local busyAt(activity) = [t.series('DCGM_FI_PROF_PIPE_TENSOR_ACTIVE', e.num(activity) + 'x60')],
    local training(name, fires, extra, gpus=4, activity=busy, target=null, value=null, onePod=false) = t.case(
      name,
      fires,
      busyAt(activity),
      gpus=gpus,
      onePod=onePod,
      owner=job,
      ownerKind=$.training.scenarioKind,
      extra=extra,
      target=target,
      value=value,
    ),

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
      description: 'The median rank of communicator {{ $labels.comm_name }} of ' + $.training.jobText + ' (cluster {{ $labels.' + l.cluster + ' }}) spends {{ $value | humanize }} × as long in a collective as rank {{ $labels.' + nc.podLabel + ' }} {{ $labels.gpu }} (threshold ' + e.num(th.ncclStragglerRatio) + ' ×): it waits for that rank, which reaches the collective last.',
      // The ranks that wait spend peers µs in a collective, each window's mean moving a
      // little (the writer rewrites its file every dump), until minute `stopped`, unchanged
      // since; a late rank spends 1/(4 × thresholds.ncclStragglerRatio) of that (its peers wait
      // for it), a slightly late one 1/sqrt(ratio) (they wait less than the threshold).
      local peers = 3000,
      local late = peers / (4 * th.ncclStragglerRatio),
      local slightly = peers / std.sqrt(th.ncclStragglerRatio),
      local waiting(stopped=60) = peers + '+1x' + stopped + (if stopped < 60 then ' ' + (peers + stopped) + 'x' + (60 - stopped) else ''),
      // GPU i's rank, its file written until minute `stopped`.
      local member(i, values, stopped=60, extra={}) = [series(exec, values, i, extra), written(i, stopped)],
      // Four ranks, the pods of the scenario's four GPUs of one training job: the last one's
      // values and the others'.
      local four(last, others, stopped=[60, 60, 60, 60]) = std.flattenArrays([member(i, if i == 3 then last else others, stopped[i]) for i in std.range(0, 3)]),
      local pair(size) = member(0, waiting(), extra={ nranks: size }) + member(1, steady(late), extra={ nranks: size }),
      local target = named + ofJob,
      tests: [
        training('one rank reaches every collective last: its peers wait', true, four(steady(late), waiting()), target=target + rankOf(3), value=(peers + 60) / late),
        // dcgm-exporter on its stock counters, without SM activity: the ranks are found all
        // the same, by the GPUs' pods.
        t.case(
          "one rank late, on the exporter's stock counters",
          true,
          [],
          gpus=4,
          owner=job,
          ownerKind=$.training.scenarioKind,
          counterFile=false,
          extra=four(steady(late), waiting()),
          target=target + rankOf(3),
          value=(peers + 60) / late,
          alsoFires=[t.also('DCGMExporterStockCounterSet', 1, target={})],
        ),
        training('every rank alike', false, four(waiting(), waiting())),
      ] + (if n.slurm then [] else [
             // One pod on the host network holds the node's GPUs (GPU0-3 in it) and writes the
             // node's hostname, not its own name.
             training(
               'one rank last, of a pod on the host network',
               true,
               std.flattenArrays([
                 member(i, if i == 3 then steady(late) else waiting(), extra={ [nc.podLabel]: t.scenarioHost, gpu: 'GPU' + i })
                 for i in std.range(0, 3)
               ]),
               onePod=true,
               target=target { [nc.podLabel]: t.scenarioHost, gpu: 'GPU3' },
               value=(peers + 60) / late,
             ),
           ]) + [
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
        training('two ranks of a larger communicator', true, pair('16'), gpus=2, target=target + rankOf(1), value=(peers + 60 + late) / 2 / late),
        // Two jobs of even ranks whose communicators have the same name: the ranks of one wait
        // far longer than the other's at every collective, and neither has a straggler.
        local each = std.max(3, th.ncclStragglerMinRanks);
        local other = 'mistral-7b-sft';
        t.case('the same communicator name in two jobs', false, busyAt(busy), gpus=2 * each, extra=std.flattenArrays([
          // (On Slurm the inspector names the other job; the scenario maps every GPU to the first.)
          local ofOther = if i < each || !n.slurm then {} else { slurm_job_id: other };
          member(i, if i < each then waiting() else steady(late), extra={ nranks: std.toString(each) } + ofOther)
          + ownedBy(i, if i < each then job else other)
          for i in std.range(0, 2 * each - 1)
        ])),
      ],
      runbook: {
        meaning: 'NCCL Inspector measures the median rank of a communicator (of ' + th.ncclStragglerMinRanks + ' ranks or more, within one training job) spending more than ' + e.num(th.ncclStragglerRatio) + ' times as long in a collective as one rank, for the same collective and message size, for ' + $.alerts.GPUNcclStragglerRank['for'] + ": a collective's kernel ends when every rank has reached it, so the ranks that arrive early wait and the one that arrives last, the straggler, shows the shortest time. The alert is per rank and communicator, valued by its worst collective and size (the first query shows them all). " +
                 'A rank is its ' + rankText + " (the inspector's " + nc.podLabel + ' label, the hostname it runs on) and its GPU (GPU<n>: the CUDA index it sees).',
        impact: 'Collectives are synchronous: every rank of the communicator waits for the last to arrive, so the whole job runs at its pace.',
        queries: [
          { title: "The communicator's ranks, by collective and message size (the straggler's time is the shortest)", expr: ranksOfTheJob(e.fill(|||
            $(exec){$(cluster)="$$(cluster)", comm_name="$comm_name"}
          |||, { exec: exec, cluster: l.cluster })) },
          // (A pod on the host network writes its node's name: its GPUs are its node's.)
          { title: "The late rank's GPU (SM activity of its " + rankText + ')', expr: if n.slurm then e.fill(|||
            DCGM_FI_PROF_SM_ACTIVE{$(cluster)="$$(cluster)", $(host)="$$(rank)", $(job)="$$(job)"}
          |||, { cluster: l.cluster, host: l.host, rank: nc.podLabel, job: l.job }) else e.fill(|||
            DCGM_FI_PROF_SM_ACTIVE{$(cluster)="$$(cluster)", $(pod)="$$(rank)"}
              or
            DCGM_FI_PROF_SM_ACTIVE{$(cluster)="$$(cluster)", $(host)="$$(rank)", $(namespace)="$$(namespace)"}
          |||, { cluster: l.cluster, pod: l.pod, host: l.host, namespace: l.namespace, rank: nc.podLabel }) },
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
      // The training jobs that compute (not a checkpoint, not idle).
      local busy = e.fill(|||
        avg by ($(job)) ($(jobs)) > $(busy)
      |||, { job: std.join(', ', [l.cluster] + owner), jobs: jobs, busy: e.num(th.ncclMinTensorActivity) }),
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
      summary: 'A collective moves far less data than the same collective and size reach elsewhere, while its job computes: starved by the network.',
      local computes = e.percent(th.ncclMinTensorActivity),
      description: 'Communicator {{ $labels.comm_name }} of ' + $.training.jobText + ' (cluster {{ $labels.' + l.cluster + ' }}) reaches {{ $value | humanizePercentage }} of the bus bandwidth {{ $labels.collective }} reaches across the cluster at the same message size (its worst size, measured by the rank that waited least; the most the 90th percentile of the communicators reached over ' + w.ncclBaseline + '), below ' + e.percent(th.ncclStarvedRatio) + ' %, while the job computes (its GPUs over ' + computes + ' % tensor-active).',
      // A window's value alternating between a (the last) and b, minute by minute, for
      // `minutes` (the writer's windows differ a little from dump to dump). The starved
      // communicator's firing value stays put: the alert reads it from a record, which
      // promtool may evaluate before or after the alert.
      local alternating(a, b, minutes=60) = std.join(' ', [if i % 2 == minutes % 2 then a else b for i in std.range(0, minutes)]),
      // GPU i's rank, in communicator name, writing its file every minute (or until `minutes`).
      local member(i, values, name, minutes=60) = [series(bandwidth, values, i, { comm_name: name }), written(i, minutes)],
      // Three other communicators of the job, on GPUs 1 to 3, reach `reach` GB/s with the same
      // collective and size; a starved one reaches 0.4 × thresholds.ncclStarvedRatio of it, a
      // fast one halfway between the threshold and all of it.
      local reach = 100,
      local starvedAt = reach * th.ncclStarvedRatio * 0.4,
      local fastAt = reach * (1 + th.ncclStarvedRatio) / 2,
      local around(value, minutes=60) = alternating(e.num(value), e.num(value + 1), minutes),
      local elsewhere = std.flattenArrays([member(i, around(reach - 1), 'TP Group ' + i) for i in std.range(1, 3)]),
      local starved = named + ofJob { collective: 'AllReduce' },
      tests: [
        // A communication-bound job starved by the network computes little: its tensor pipe
        // at 4 × the floor (its SMs, where NCCL spins, look busier).
        training('a communication-bound job at a fraction of what it reaches elsewhere', true, elsewhere + member(0, steady(starvedAt), 'DP Group 0'), target=starved, value=starvedAt / reach),
        training('the same collective, GPUs idle (a checkpoint)', false, elsewhere + member(0, around(starvedAt), 'DP Group 0'), activity=idle),
        training('a collective as fast as elsewhere', false, elsewhere + member(0, around(fastAt), 'DP Group 0')),
        // Its file stays, unchanged since the crash half an hour ago.
        training('the file of a job that crashed', false, elsewhere + member(0, around(starvedAt, 30) + ' ' + e.num(starvedAt) + 'x29', 'DP Group 0', 30)),
        // Two ranks of one communicator: the one that arrived first waited for the other and
        // measures a fraction of the bandwidth; the late one measures what the network gave.
        training(
          'a rank that waited for a late one',
          false,
          std.flattenArrays(
            [member(i, around(reach - 1), 'TP Group ' + i) for i in std.range(2, 3)],
          ) + member(0, around(starvedAt), 'DP Group 0') + member(1, around(reach - 1), 'DP Group 0'),
        ),
      ],
      runbook: {
        meaning: 'The most bus bandwidth any rank of a communicator (within one training job) measures for a collective and message size is below ' + e.percent(th.ncclStarvedRatio) + ' % of what the same collective and size (and node count) reach across the cluster over ' + w.ncclBaseline + " (the 90th percentile of the communicators' best; the alert is per communicator and collective, valued by its worst size), while the job computes (its GPUs over " +
                 e.percent(th.ncclMinTensorActivity) + ' % tensor-pipe activity on average), for ' + $.alerts.GPUNcclCollectiveStarved['for'] + '. The rank that waited least for the others measures what the network gave the collective: ranks that wait for a late one measure less, and a straggler alone does not make a communicator starved.',
        impact: 'The job spends its time waiting on the network: step time grows while its SMs look busy (NCCL spins on them).',
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
