// Training jobs: a rank whose GPU runs well below its siblings' median activity (a straggler
// holds every rank of a synchronous job to its pace).
local e = import '../lib/expr.libsonnet';
local names = import '../lib/names.libsonnet';
local rb = import '../lib/runbook.libsonnet';
local t = import '../lib/test.libsonnet';
{
  thresholds+: {
    // A straggler runs below this share of its workload's median SM activity...
    stragglerRatio: 0.5,
    // ...while the median itself stays above this (the workload is busy, not idle).
    stragglerBusyActivity: 0.4,
  },

  local l = $.labels,
  local th = $.thresholds,
  local w = $.windows,
  local owner = ['owner_kind', 'owner_name'],
  local workload = [l.cluster, l.namespace] + owner,
  local stragglerRecord = names.trainingActivity(w.straggler),

  records+: {
    // Per-GPU SM activity of pods that a training controller (training.ownerKinds) owns,
    // labelled with the owner: the siblings a straggler is compared with. Whole GPUs only.
    [stragglerRecord]: {
      section: 'kubernetes',
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
    local gpuText = 'GPU {{ $labels.' + l.gpu + ' }} ({{ $labels.' + l.uuid + ' }}) on {{ $labels.' + l.host + ' }}',
    local mlp = { team: $.teams['ml-platform'] },
    // Runbook parts; the steps alerts of several families share come from lib/runbook.libsonnet.
    local q = rb.query,
    local step = rb.step,
    local is = rb.is,
    local gpuSel = rb.sel([l.cluster, l.host, l.uuid]),

    GPUTrainingStraggler: mlp {
      section: 'kubernetes',
      family: 'utilization',
      severity: 'warning',
      local median = e.fill(|||
        quantile by ($(workload)) (0.5, $(record))
      |||, { workload: std.join(', ', workload), record: stragglerRecord }),
      expr: e.fill(|||
        $(record) < on ($(workload)) group_left () ($(ratio) * $(median)) and on ($(workload)) ($(median) > $(busy)) and on ($(workload)) (count by ($(workload)) ($(record)) > 1)
      |||, {
        record: stragglerRecord,
        workload: std.join(', ', workload),
        ratio: std.toString(th.stragglerRatio),
        median: median,
        busy: std.toString(th.stragglerBusyActivity),
      }),
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
          q('SM activity of every GPU of the job', e.fill('$(stragglerRecord){$(cluster), $(namespace), owner_name="$owner_name"}', { stragglerRecord: stragglerRecord, cluster: is(l.cluster), namespace: is(l.namespace) })),
          q('NVLink errors on the slow GPU', e.fill('60 * rate(DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL$(gpuSel)[5m])', { gpuSel: gpuSel })),
          q('Throttling of the slow GPU', e.fill('gpu:dcgm_clock_throttle_thermal:max$(gpuSel) or gpu:dcgm_clock_throttle_power:max$(gpuSel)', { gpuSel: gpuSel })),
          q('Other alerts on the slow GPU', e.fill('ALERTS{$(uuid), alertstate="firing"}', { uuid: is(l.uuid) })),
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
  },
}
