// The PCIe link of a GPU: replays above their per-minute rate, and a busy GPU whose link runs
// below its width or generation (it did not train up), ticket.
local e = import '../lib/expr.libsonnet';
local gpu = import '../lib/gpu.libsonnet';
local rb = import '../lib/runbook.libsonnet';
local t = import '../lib/test.libsonnet';
{
  thresholds+: {
    pcieReplaysPerMinute: 10,
    // A GPU busier than this (engine activity) whose PCIe link runs below its generation has a
    // link that did not train up: below it, a lower generation is the link saving power.
    pcieBusyActivity: 0.5,
  },

  alerts+: {
    local g = gpu($),
    local fill = g.fill,
    local l = $.labels,
    local id = std.join(', ', $.identity.alert),
    local th = $.thresholds,
    local hw = g.owner,
    local perMinute = g.perMinute,
    local gpuText = g.gpuText,
    local attributed = g.attributed,
    local q = rb.query,
    local step = rb.step,
    local cordon = g.cordon,
    local drain = g.drain,
    local reset = g.reset,
    local rma = g.rma,
    local hardware = g.hardware,

    GPUPcieReplayRate: hw {
      family: 'pcie',
      severity: 'warning',
      expr: attributed(perMinute('DCGM_FI_DEV_PCIE_REPLAY_COUNTER', th.pcieReplaysPerMinute)),
      panelThresholds:: { DCGM_FI_DEV_PCIE_REPLAY_COUNTER: th.pcieReplaysPerMinute },
      'for': '10m',
      summary: 'A GPU is replaying PCIe transfers at a high rate.',
      description: gpuText + ' replays {{ $value | printf "%.1f" }} PCIe transfers per minute (threshold ' + e.num(th.pcieReplaysPerMinute) + '): check the riser, slot and link width.',
      tests: [
        t.case('bad link', true, [t.series('DCGM_FI_DEV_PCIE_REPLAY_COUNTER', t.risingPerMinute(3 * th.pcieReplaysPerMinute))], value=3 * th.pcieReplaysPerMinute),
        t.case('healthy link', false, [t.series('DCGM_FI_DEV_PCIE_REPLAY_COUNTER', t.risingPerMinute(th.pcieReplaysPerMinute / 10))]),
      ],
      runbook: hardware(
        'The GPU replays PCIe transfers often: the link to the host is noisy.',
        'Host-to-GPU transfers slow down (data loading, checkpoints); a failing link can end with the GPU falling off the bus.',
        [
          q('PCIe replays per minute', fill('60 * rate(DCGM_FI_DEV_PCIE_REPLAY_COUNTER$(gpuSel)[5m])')),
          q('PCIe throughput', fill('DCGM_FI_PROF_PCIE_RX_BYTES$(gpuSel) or DCGM_FI_PROF_PCIE_TX_BYTES$(gpuSel)')),
        ],
        [
          step('Does `nvidia-smi -q -i $' + l.gpu + ' -d PCIE` show a lower link width or generation than the slot supports?', 'Reseat the GPU or the riser.'),
          step('Do several GPUs behind the same PCIe switch replay?', 'Suspect the switch or the baseboard: hardware service.', 'Reseat this GPU; RMA if it continues.'),
        ],
        [cordon, drain, "Reseat the GPU and riser; check the slot's link width and generation.", rma],
      ),
    },

    // The link runs below what the GPU and its slot support; a series without its maximum
    // (an exporter that does not collect it) stays quiet. The exporter labels both fields of a
    // GPU alike, so they compare series to series before one aggregation.
    local linkBelowMax(field, max) = e.fill(|||
      max by ($(id)) ($(below))
    |||, { id: id, below: $.exporter.workload(e.fill('$(field) < $(max)', { field: field, max: max })) }),
    local pcieLink(what) = hardware(
      "The GPU's PCIe link runs at a lower " + what + ' than the GPU and its slot support.',
      'Host-to-GPU transfers (data loading, checkpoints, KV-cache offload) run at a fraction of their speed for as long as the link stays trained down; a marginal link often goes on to replay and fall off the bus.',
      [
        q('Link width and its maximum', fill('DCGM_FI_DEV_PCIE_LINK_WIDTH$(gpuSel) or DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH$(gpuSel)')),
        q('Link generation and its maximum', fill('DCGM_FI_DEV_PCIE_LINK_GEN$(gpuSel) or DCGM_FI_DEV_PCIE_MAX_LINK_GEN$(gpuSel)')),
        q('PCIe replays per minute', fill('60 * rate(DCGM_FI_DEV_PCIE_REPLAY_COUNTER$(gpuSel)[5m])')),
      ],
      [
        step('Does `nvidia-smi -q -i $' + l.gpu + ' -d PCIE` show the same ' + what + ' after a reset of the GPU?', 'The slot, riser or cable trains the link down: go on to the next check.'),
        step('Do the other GPUs behind the same PCIe switch run below their maximum too?', 'Suspect the switch or the baseboard: hardware service.', 'Reseat this GPU and its riser in a maintenance window; RMA if it continues.'),
      ],
      [cordon, drain, reset, "Reseat the GPU and riser; check the slot's BIOS link settings.", rma],
    ),

    GPUPcieLinkWidthDegraded: hw {
      family: 'pcie',
      severity: 'warning',
      expr: linkBelowMax('DCGM_FI_DEV_PCIE_LINK_WIDTH', 'DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH'),
      'for': '15m',
      summary: 'A GPU runs its PCIe link on fewer lanes than it supports.',
      description: gpuText + ' has run its PCIe link on {{ $value }} lanes for ' + self['for'] + ', fewer than the GPU and its slot support: host transfers run at a fraction of their speed.',
      tests: [
        t.case('trained down to x8 of x16', true, [t.series('DCGM_FI_DEV_PCIE_LINK_WIDTH', '8x60'), t.series('DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH', '16x60')], value=8),
        t.case('full width', false, [t.series('DCGM_FI_DEV_PCIE_LINK_WIDTH', '16x60'), t.series('DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH', '16x60')]),
        t.case('x8 for the last 10 minutes only', false, [t.series('DCGM_FI_DEV_PCIE_LINK_WIDTH', '16x50 8x10'), t.series('DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH', '16x60')]),
        t.case('no maximum collected', false, [t.series('DCGM_FI_DEV_PCIE_LINK_WIDTH', '8x60')]),
      ],
      runbook: pcieLink('width (lanes)'),
    },

    // An idle link drops to a lower generation to save power: only a busy GPU's is a fault.
    GPUPcieLinkGenDegraded: hw {
      local activity = 'DCGM_FI_PROF_GR_ENGINE_ACTIVE',
      family: 'pcie',
      severity: 'warning',
      expr: e.fill(|||
        ($(belowMax)) and on ($(id)) max by ($(id)) ($(activity)) > $(busy)
      |||, { belowMax: linkBelowMax('DCGM_FI_DEV_PCIE_LINK_GEN', 'DCGM_FI_DEV_PCIE_MAX_LINK_GEN'), id: id, activity: $.exporter.workload(activity), busy: e.num(th.pcieBusyActivity) }),
      'for': '15m',
      summary: 'A busy GPU runs its PCIe link at a lower generation than it supports.',
      description: gpuText + ' has run its PCIe link at generation {{ $value }} for ' + self['for'] + ' while its engine was more than ' + e.percent(th.pcieBusyActivity) + ' % active, below the generation the GPU and its slot support: the link did not train up under load.',
      tests: [
        t.case('busy at Gen3 of Gen5', true, [t.series('DCGM_FI_DEV_PCIE_LINK_GEN', '3x60'), t.series('DCGM_FI_DEV_PCIE_MAX_LINK_GEN', '5x60'), t.series(activity, e.num(th.pcieBusyActivity + 0.3) + 'x60')], value=3),
        t.case('lightly used at Gen1 (saving power)', false, [t.series('DCGM_FI_DEV_PCIE_LINK_GEN', '1x60'), t.series('DCGM_FI_DEV_PCIE_MAX_LINK_GEN', '5x60'), t.series(activity, e.num((th.idleActivity + th.pcieBusyActivity) / 2) + 'x60')]),
        t.case('busy at its full generation', false, [t.series('DCGM_FI_DEV_PCIE_LINK_GEN', '5x60'), t.series('DCGM_FI_DEV_PCIE_MAX_LINK_GEN', '5x60'), t.series(activity, e.num(th.pcieBusyActivity + 0.3) + 'x60')]),
      ],
      runbook: pcieLink('generation'),
    },
  },
}
