// Training jobs: a rank whose GPU runs well below its siblings' median activity (a straggler
// holds every rank of a synchronous job to its pace).
local e = import '../lib/expr.libsonnet';
local names = import '../lib/names.libsonnet';
local rb = import '../lib/runbook.libsonnet';
local t = import '../lib/test.libsonnet';
{
  thresholds+: {
    // A straggler's tensor-pipe activity is over this multiple of its job's median: in a
    // synchronous job the GPU that slows the step computes the whole step, its peers compute
    // less of it and wait (NCCL's spin issues no tensor instructions)...
    stragglerTensorRatio: 1.5,
    // ...while it computes (its own tensor activity over this: an idle job has no straggler)...
    stragglerMinTensorActivity: 0.1,
    // ...in a job of at least this many ranks (a median of two is their mean).
    stragglerMinRanks: 4,
    // Its cause is the hardware where its SM clock runs under this share of its job's median
    // (thermal or power throttling, a clock held low), else its work (more of it, an uneven
    // shard).
    stragglerClockRatio: 0.9,
  },

  local l = $.labels,
  local th = $.thresholds,
  local w = $.windows,
  local slurm = $.scheduler == 'slurm',
  local owner = ['owner_kind', 'owner_name'],
  // A training job: the pods one training controller owns, or a Slurm job.
  local job = [l.cluster] + $.training.jobLabels,
  local gpu = $.identity.alert + (if slurm then [] else owner),
  local activityRecord = names.trainingActivity(w.straggler),
  local clockRecord = names.trainingClock(w.straggler),
  // A field of each whole GPU of a training job, averaged over the straggler window, labelled
  // with the job: the pods' owner (a training controller), or the Slurm job the GPU's series
  // carry.
  local ofTrainingJobs(field) = if slurm then e.fill(|||
    max by ($(gpu)) (avg_over_time($(field){$(job)!="", $(mig)=""}[$(window)]))
  |||, { gpu: std.join(', ', gpu), field: field, job: l.job, mig: l.migInstance, window: w.straggler })
  else e.fill(|||
    max by ($(gpu)) (
        $(activity)
      * on ($(pod)) group_left ($(owner))
        max by ($(pod), $(owner)) ($(owners))
    )
  |||, {
    gpu: std.join(', ', gpu),
    activity: $.exporter.workload(e.fill('avg_over_time($(field){$(namespace)!="", $(mig)=""}[$(window)])', { field: field, namespace: l.namespace, mig: l.migInstance, window: w.straggler })),
    pod: std.join(', ', [l.cluster, l.namespace, l.pod]),
    owner: std.join(', ', owner),
    owners: $.training.owners,
  }),

  records+: {
    // Per-GPU tensor-pipe activity and SM clock of training jobs' GPUs, labelled with the job:
    // the peers a straggler is compared with. Whole GPUs only.
    [activityRecord]: { family: 'workload', expr: ofTrainingJobs('DCGM_FI_PROF_PIPE_TENSOR_ACTIVE') },
    [clockRecord]: { family: 'workload', expr: ofTrainingJobs('DCGM_FI_DEV_SM_CLOCK') },
  },

  alerts+: {
    local gpuText = 'GPU {{ $labels.' + l.gpu + ' }} ({{ $labels.' + l.uuid + ' }}) on {{ $labels.' + l.host + ' }}',
    local jobText = $.training.jobText,
    local mlp = { team: $.teams['ml-platform'] },
    // Runbook parts; the steps alerts of several families share come from lib/runbook.libsonnet.
    local q = rb.query,
    local step = rb.step,
    local is = rb.is,
    local gpuSel = rb.sel([l.cluster, l.host, l.uuid]),

    // A GPU that holds its synchronous training job back: its tensor-pipe activity well over
    // its job's median (it computes the whole step while its peers wait), labelled with the
    // cause its SM clock tells. A host-side stall (data loading, a checkpoint) slows every
    // rank alike and raises nothing here; NCCL Inspector's sections see it where they run.
    GPUTrainingStraggler: mlp {
      family: 'utilization',
      severity: 'warning',
      local byJob = std.join(', ', job),
      local median(record) = e.fill('quantile by ($(job)) (0.5, $(record))', { job: byJob, record: record }),
      local straggler = e.fill(|||
        $(activity) > on ($(job)) group_left () ($(ratio) * $(median))
        and $(activity) > $(floor)
        and on ($(job)) (count by ($(job)) ($(activity)) >= $(ranks))
      |||, {
        activity: activityRecord,
        job: byJob,
        ratio: e.num(th.stragglerTensorRatio),
        median: median(activityRecord),
        floor: e.num(th.stragglerMinTensorActivity),
        ranks: e.num(th.stragglerMinRanks),
      }),
      local slowClock = e.fill('$(clock) < on ($(job)) group_left () ($(ratio) * $(median))', {
        clock: clockRecord,
        job: byJob,
        ratio: e.num(th.stragglerClockRatio),
        median: median(clockRecord),
      }),
      // Each GPU's cause, were it a straggler: hardware where its clock runs low, else (its
      // clock alike, or not collected) workload.
      local cause = e.fill(|||
        label_replace(group by ($(gpu)) ($(slowClock)), "cause", "hardware", "", "")
        or
        label_replace(group by ($(gpu)) ($(activity) unless $(slowClock)), "cause", "workload", "", "")
      |||, { gpu: std.join(', ', gpu), slowClock: slowClock, activity: activityRecord }),
      expr: e.fill(|||
        ($(straggler)) * on ($(gpu)) group_left (cause) ($(cause))
      |||, { straggler: straggler, gpu: std.join(', ', gpu), cause: cause }),
      'for': '15m',
      identity: gpu + ['cause'],
      summary: 'One GPU holds its synchronous training job back: it computes while its peers wait.',
      description: gpuText + ' of ' + jobText + ' is {{ $value | humanizePercentage }} tensor-active, over ' + e.num(th.stragglerTensorRatio) + "× its job's median, while its peers wait for it; cause: {{ $labels.cause }} (hardware: its SM clock under " + e.percent(th.stragglerClockRatio) + " % of the job's; workload: more work or an uneven shard).",
      tests:
        // A 16-rank job computes 0.6 of its step on the tensor pipe; a straggler at half
        // speed stretches the step to twice its length: it stays at 0.6, its peers fall to
        // 0.3 (they compute half the step and wait), their clocks at 1980 MHz.
        local ranks = 16, busy = 0.6, waiting = 0.3, clock = 1980, tensor = 'DCGM_FI_PROF_PIPE_TENSOR_ACTIVE', sm = 'DCGM_FI_DEV_SM_CLOCK';
        local peers = [x for x in std.range(0, ranks - 1) if x != 5];
        local run(slowTensor, peersTensor, slowClock) = [
          t.series(tensor, peersTensor, entities=peers),
          t.series(tensor, slowTensor, entities=[5]),
          t.series(sm, clock + 'x60', entities=peers),
          t.series(sm, slowClock, entities=[5]),
        ];
        local slowed = t.steps([[busy, 20], [waiting, 40]]);
        local trainer = { gpus: ranks, owner: 'llama-70b-pretrain', ownerKind: $.training.scenarioKind };
        local case(name, fires, series, value=null, labels={}, alsoFires=[], c=trainer) =
          t.case(name, fires, series, gpus=c.gpus, owner=c.owner, ownerKind=c.ownerKind, firing=[5], value=value, labels=labels, alsoFires=alsoFires);
        [
          case('a throttled GPU slows its 16-rank job', true, run(busy + 'x60', slowed, t.steps([[clock, 20], [1200, 40]])), value=busy, labels={ cause: 'hardware' }),
          case('a GPU with more work slows its job', true, run(busy + 'x60', slowed, clock + 'x60'), value=busy, labels={ cause: 'workload' }),
          // The book's incident walkthrough: NVLink CRC errors on one GPU slow a fine-tune:
          // the NVLink ticket on that GPU, the straggler ticket on the job, nothing pages.
          case('incident walkthrough: NVLink CRC errors slow a fine-tune',
               true,
               run(busy + 'x60', slowed, clock + 'x60') + [t.series('DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL', '0x20 0+' + (10 * th.nvlinkCrcErrorsPerMinute) + 'x40', entities=[5])],
               value=busy,
               labels={ cause: 'workload' },
               alsoFires=[t.also('GPUNvlinkCrcErrors', 10 * th.nvlinkCrcErrorsPerMinute, firing=[5])]),
          case('every rank in step', false, run(busy + 'x60', busy + 'x60', clock + 'x60')),
          // A host-side stall (a slow data loader, a checkpoint) slows every rank alike.
          case('a host-side stall slows every rank alike', false, run(t.steps([[busy, 20], [0.33, 40]]), t.steps([[busy, 20], [0.3, 40]]), clock + 'x60')),
          case('an idle job (its ranks wait on input)', false, run('0.06x60', '0.02x60', clock + 'x60')),
          // (Over 1.5 × the mean of two: a median of two ranks tells nothing.)
          t.case(
            'a job of two ranks',
            false,
            [t.series(tensor, busy + 'x60', entities=[0]), t.series(tensor, (busy / 4) + 'x60', entities=[1]), t.series(sm, clock + 'x60')],
            gpus=2,
            owner=trainer.owner,
            ownerKind=trainer.ownerKind,
          ),
          case('the straggler for the last 10 minutes', false, run(busy + 'x60', t.steps([[busy, 50], [waiting, 10]]), clock + 'x60')),
        ] + (if slurm then [] else [
               case('uneven inference replicas (a ReplicaSet)', false, run(busy + 'x60', slowed, clock + 'x60'), c=trainer { owner: 'llm-server-7d9f', ownerKind: 'ReplicaSet' }),
               case('no controller owns the pods', false, run(busy + 'x60', slowed, clock + 'x60'), c=trainer { owner: '', ownerKind: '' }),
             ]),
      runbook: {
        meaning: 'For ' + $.alerts.GPUTrainingStraggler['for'] + ' one GPU of a synchronous training job has been tensor-active over ' + e.num(th.stragglerTensorRatio) + "× its job's median: it computes the whole step while its peers compute less of it and wait for it in their collectives. The cause label reads its SM clock against the job's: hardware where it runs under " + e.percent(th.stragglerClockRatio) + " % of the job's median (throttling), workload where the clocks agree (more work, an uneven shard). Pipeline stages and experts that differ by design look the same: where a job's ranks do different work, the alert says so of its busiest.",
        impact: "Synchronous training runs at this GPU's pace: every other rank waits on it each step.",
        queries: [
          q('Tensor activity of every GPU of the job', e.fill('$(record){$(job)}', { record: activityRecord, job: if slurm then is(l.job) else std.join(', ', [is(l.cluster), is(l.namespace), 'owner_name="$owner_name"']) })),
          q('SM clock of every GPU of the job', e.fill('$(record){$(job)}', { record: clockRecord, job: if slurm then is(l.job) else std.join(', ', [is(l.cluster), is(l.namespace), 'owner_name="$owner_name"']) })),
          q('Throttling of the slow GPU', e.fill('gpu:dcgm_clock_throttle_thermal:max$(gpuSel) or gpu:dcgm_clock_throttle_power:max$(gpuSel)', { gpuSel: gpuSel })),
          q('NVLink errors on the slow GPU', e.fill('60 * rate(DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL$(gpuSel)[5m])', { gpuSel: gpuSel })),
          q('Other alerts on the slow GPU', e.fill('ALERTS{$(uuid), alertstate="firing"}', { uuid: is(l.uuid) })),
        ],
        diagnosis: [
          step("Is the cause hardware (its SM clock under the job's)?", 'Read why from its throttle reasons: thermal or power (follow the throttling runbook), or a clock held low by an application clock setting (`nvidia-smi -q -d CLOCK`).', ''),
          step('Does the slow GPU have NVLink or PCIe errors (GPUNvlinkCrcErrors, GPUPcieReplayRate)?', 'Hardware: follow that runbook; restart the job without the node.', ''),
          step('Is it a pipeline stage or expert that does more work by design (the last stage computes the loss)?', 'By design: tell the owner which rank bounds the step; rebalance the stages if it costs much.', 'More data or a different shard on this rank: rebalance the input pipeline; profile the rank (Nsight Systems) with the owner.'),
        ],
        mitigation: ['If the GPU is faulty or throttled, ' + (if slurm then 'drain its node' else 'cordon its node') + ' and restart the job from its last checkpoint elsewhere.', 'Otherwise give the owner the per-rank view (L4) to fix the imbalance.'],
        escalation: rb.escalation.mlPlatform,
        dashboards: ['L4', 'L5'],
      },
    },
  },
}
