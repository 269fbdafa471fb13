// NVLink errors between the GPUs of a node: CRC, replay and recovery errors above their
// per-minute rates ticket (a noisy link slows every GPU of a collective).
local e = import '../lib/expr.libsonnet';
local gpu = import '../lib/gpu.libsonnet';
local rb = import '../lib/runbook.libsonnet';
local t = import '../lib/test.libsonnet';
{
  thresholds+: {
    nvlinkCrcErrorsPerMinute: 1,
    nvlinkReplayErrorsPerMinute: 5,
  },

  alerts+: {
    local g = gpu($),
    local fill = g.fill,
    local l = $.labels,
    local th = $.thresholds,
    local w = $.windows,
    local hw = g.owner,
    local gpuText = g.gpuText,
    local attributed = g.attributed,
    local increasedOver = g.increasedOver,
    local churnCases = g.churnCases,
    local q = rb.query,
    local step = rb.step,
    local is = rb.is,
    local cordon = g.cordon,
    local drain = g.drain,
    local rma = g.rma,
    local hardware = g.hardware,

    // Error rates read the per-GPU rates that the recording rules keep anyway.
    local perMinute = g.perMinute,

    local nvlinkRunbook(what) = hardware(
      "The GPU's NVLinks see " + what + ': the link between GPUs is noisy.',
      'Collective operations (AllReduce) slow down for every GPU of the job, not only this one: a multi-GPU job runs at the pace of its worst link.',
      [
        q('CRC errors per minute', fill('60 * rate(DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL$(gpuSel)[5m])')),
        q('Replays and recoveries per minute', fill('60 * rate(DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL$(gpuSel)[5m]) or 60 * rate(DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL$(gpuSel)[5m])')),
        q('NVLink errors on every GPU of the node (one bad bridge shows on two GPUs)', fill('sum by ($(gpu)) (rate(DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL$(nodeSel)[5m]))', { gpu: l.gpu })),
        q('Is the job slowed down (straggler)?', e.fill('ALERTS{alertname="GPUTrainingStraggler", $(host)}', { host: is(l.host) })),
      ],
      [
        step('Do two GPUs of the node show errors on the links between them?', 'Suspect the NVSwitch tray or bridge: drain the node for hardware service.'),
        step('Did the errors start after a driver or firmware change?', 'Roll back and escalate to the vendor.'),
        step('Does `nvidia-smi nvlink -e -i $' + l.gpu + '` show the error counters still rising?', 'Drain and run `dcgmi diag -r 3`; open an RMA on failure.', 'A burst: watch it.'),
      ],
      [cordon, drain, 'Run the DCGM level-3 diagnostics (`dcgmi diag -r 3`) and reseat or replace the board or bridge.', rma],
    ),

    GPUNvlinkCrcErrors: hw {
      family: 'nvlink',
      severity: 'warning',
      expr: attributed(e.fill(|||
        $(flit) or $(data)
      |||, {
        flit: perMinute('DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL', th.nvlinkCrcErrorsPerMinute),
        data: perMinute('DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL', th.nvlinkCrcErrorsPerMinute),
      })),
      panelThresholds:: {
        DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL: th.nvlinkCrcErrorsPerMinute,
        DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL: th.nvlinkCrcErrorsPerMinute,
      },
      'for': '10m',
      summary: 'A GPU is seeing NVLink CRC errors.',
      description: gpuText + ' sees {{ $value | printf "%.1f" }} NVLink CRC errors per minute (threshold ' + e.num(th.nvlinkCrcErrorsPerMinute) + ').',
      tests: [
        t.case('flit CRC errors', true, [t.series('DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL', t.risingPerMinute(10 * th.nvlinkCrcErrorsPerMinute))], value=10 * th.nvlinkCrcErrorsPerMinute),
        t.case('data CRC errors', true, [t.series('DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL', t.risingPerMinute(4 * th.nvlinkCrcErrorsPerMinute))], value=4 * th.nvlinkCrcErrorsPerMinute),
        t.case('rare CRC errors', false, [t.series('DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL', t.risingPerMinute(th.nvlinkCrcErrorsPerMinute / 2))]),
        local perMinute = 10 * th.nvlinkCrcErrorsPerMinute;
        t.case('flit CRC errors across a pod exit', true, [
          t.series('DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL', '0+' + perMinute + 'x30'),
          t.series('DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL', '_x31 ' + 31 * perMinute + '+' + perMinute + 'x29', pod=false),
        ], health='65x30', extraHealth='_x31 65x29', value=perMinute, without=$.identity.workload),
      ],
      runbook: nvlinkRunbook('CRC errors'),
    },

    GPUNvlinkReplayErrors: hw {
      family: 'nvlink',
      severity: 'warning',
      expr: attributed(perMinute('DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL', th.nvlinkReplayErrorsPerMinute)),
      panelThresholds:: { DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL: th.nvlinkReplayErrorsPerMinute },
      'for': '10m',
      summary: 'A GPU is replaying NVLink transfers at a high rate.',
      description: gpuText + ' replays {{ $value | printf "%.1f" }} NVLink transfers per minute (threshold ' + e.num(th.nvlinkReplayErrorsPerMinute) + ').',
      tests: [
        t.case('replays', true, [t.series('DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL', t.risingPerMinute(4 * th.nvlinkReplayErrorsPerMinute))], value=4 * th.nvlinkReplayErrorsPerMinute),
        t.case('few replays', false, [t.series('DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL', t.risingPerMinute(th.nvlinkReplayErrorsPerMinute / 2))]),
      ],
      runbook: nvlinkRunbook('many replayed transfers'),
    },

    GPUNvlinkRecoveryErrors: hw {
      family: 'nvlink',
      severity: 'warning',
      expr: attributed(e.fill(|||
        $(increase) > 0
      |||, { increase: increasedOver('DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL', w.throttle) })),
      summary: 'An NVLink of a GPU had to be recovered (retrained).',
      description: gpuText + ' logged {{ $value | printf "%.0f" }} NVLink recovery errors in the last ' + w.throttle + '.',
      tests: [
        t.case('link recovery', true, [t.series('DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL', '0x56 2x4')], value=2),
        t.case('old recovery', false, [t.series('DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL', '0x20 2x40')]),
      ] + churnCases('DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL', 'recovery', 2),
      runbook: nvlinkRunbook('link recoveries (retraining)'),
    },
  },
}
