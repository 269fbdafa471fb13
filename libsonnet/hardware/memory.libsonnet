// GPU memory health: uncorrectable (double-bit) ECC errors and a failed row remap page, a
// high single-bit ECC rate, a pending row remap and retired pages ticket.
local e = import '../lib/expr.libsonnet';
local gpu = import '../lib/gpu.libsonnet';
local rb = import '../lib/runbook.libsonnet';
local t = import '../lib/test.libsonnet';
{
  thresholds+: {
    eccSingleBitPerHour: 100,
  },

  windows+: {
    eccRate: '1h',
  },

  alerts+: {
    local g = gpu($),
    local fill = g.fill,
    local id = std.join(', ', $.identity.alert),
    local th = $.thresholds,
    local w = $.windows,
    local hw = g.owner,
    local gpuText = g.gpuText,
    local attributed = g.attributed,
    local increasedOver = g.increasedOver,
    local churnCases = g.churnCases,
    local q = rb.query,
    local step = rb.step,
    local cordon = g.cordon,
    local drain = g.drain,
    local reset = g.reset,
    local rma = g.rma,
    local hardware = g.hardware,
    local incidentCases = g.incidentCases,
    local eventAlert = g.eventAlert,

    GPUEccDoubleBit: hw {
      family: 'memory',
      severity: 'critical',
      expr: attributed(e.fill(|||
        $(increase) > 0
      |||, { increase: increasedOver('DCGM_FI_DEV_ECC_DBE_VOL_TOTAL', w.event) })),
      summary: 'A GPU reported uncorrectable (double-bit) ECC errors.',
      description: gpuText + ' logged {{ $value | printf "%.0f" }} double-bit ECC errors in the last ' + w.event + '.',
      tests: [
               t.case('new DBE', true, [t.series('DCGM_FI_DEV_ECC_DBE_VOL_TOTAL', '0x57 1x3')], value=1),
               t.case('new DBE on a MIG GPU', true, [t.series('DCGM_FI_DEV_ECC_DBE_VOL_TOTAL', '0x57 1x3')], value=1, mig=true),
               t.case('old DBE, none since', false, [t.series('DCGM_FI_DEV_ECC_DBE_VOL_TOTAL', '2x60')]),
               t.case('counter reset by driver reload', false, [t.series('DCGM_FI_DEV_ECC_DBE_VOL_TOTAL', '3x50 0x10')]),
             ] + churnCases('DCGM_FI_DEV_ECC_DBE_VOL_TOTAL', 'DBE', 1, kept='GPUEccDoubleBit')
             + incidentCases(function(minute) [t.series('DCGM_FI_DEV_ECC_DBE_VOL_TOTAL', '0x' + minute + ' 1x' + (60 - minute))], 1),
      runbook: hardware(
        'The GPU logged uncorrectable (double-bit) ECC errors: data in its memory was corrupted.',
        'The running job computed on corrupted data or crashed; the GPU needs a reset before it can be trusted.',
        [
          q('Double-bit errors in the last hour', fill('increase(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL$(gpuSel)[1h])')),
          q('Lifetime double-bit errors (persistent)', fill('DCGM_FI_DEV_ECC_DBE_AGG_TOTAL$(gpuSel)')),
          q('Pending retirements and remaps', fill('DCGM_FI_DEV_RETIRED_PENDING$(gpuSel) or DCGM_FI_DEV_ROW_REMAP_PENDING$(gpuSel)')),
          q('Row-remap failure (no spare rows left)', fill('DCGM_FI_DEV_ROW_REMAP_FAILURE$(gpuSel)')),
        ],
        [
          step('Is DCGM_FI_DEV_ROW_REMAP_FAILURE 1?', 'The GPU is out of spare rows: RMA.'),
          step('Is a row remap or page retirement pending?', 'Reset the GPU to apply it, then watch for new errors.'),
          step('Has the lifetime counter grown over previous weeks?', 'Degrading memory: RMA.', 'A one-off: reset and watch.'),
        ],
        [cordon, drain, reset, rma],
      ),
    } + eventAlert,

    GPUEccSingleBitRate: hw {
      panelThresholds:: { singleBitPerHour: th.eccSingleBitPerHour },
      family: 'memory',
      severity: 'warning',
      expr: attributed(e.fill(|||
        $(increase) > $(threshold)
      |||, { increase: increasedOver('DCGM_FI_DEV_ECC_SBE_VOL_TOTAL', w.eccRate), threshold: std.toString(th.eccSingleBitPerHour) })),
      'for': '5m',
      summary: 'A GPU is logging correctable (single-bit) ECC errors at a high rate.',
      description: gpuText + ' logged {{ $value | printf "%.0f" }} single-bit ECC errors in the last ' + w.eccRate + ' (threshold ' + e.num(th.eccSingleBitPerHour) + ').',
      tests: [
        // Scenario values follow the threshold, so the tests hold for any override.
        t.case('SBE spike', true, [t.series('DCGM_FI_DEV_ECC_SBE_VOL_TOTAL', t.risingPerHour(2 * th.eccSingleBitPerHour))], value=2 * th.eccSingleBitPerHour),
        t.case('a trickle of SBEs', false, [t.series('DCGM_FI_DEV_ECC_SBE_VOL_TOTAL', t.risingPerHour(th.eccSingleBitPerHour / 2))]),
        // Half the hour on the pod's series, half on the series without it: neither alone
        // crosses the threshold, the GPU does.
        local perMinute = 1.5 * th.eccSingleBitPerHour / 60;
        t.case('SBE spike across a pod exit', true, [
          t.series('DCGM_FI_DEV_ECC_SBE_VOL_TOTAL', '0+' + perMinute + 'x30'),
          t.series('DCGM_FI_DEV_ECC_SBE_VOL_TOTAL', '_x31 ' + 31 * perMinute + '+' + perMinute + 'x29', pod=false),
        ], health='65x30', extraHealth='_x31 65x29', value=1.5 * th.eccSingleBitPerHour, without=$.identity.workload),
      ],
      runbook: hardware(
        'The GPU corrects single-bit ECC errors at a high rate: its memory is degrading.',
        'No job is affected yet; a rising rate often precedes double-bit errors and row-remap exhaustion.',
        [
          q('Single-bit errors per hour', fill('increase(DCGM_FI_DEV_ECC_SBE_VOL_TOTAL$(gpuSel)[1h])')),
          q('Lifetime single-bit errors', fill('DCGM_FI_DEV_ECC_SBE_AGG_TOTAL$(gpuSel)')),
          q('Pending remaps', fill('DCGM_FI_DEV_ROW_REMAP_PENDING$(gpuSel)')),
        ],
        [
          step('Is the rate still rising over the last day?', 'Plan an RMA before it turns uncorrectable.'),
          step('Are row remaps pending?', 'Reset the GPU in the next maintenance window to apply them.', 'Watch it for a week.'),
        ],
        ['Schedule a reset in the next maintenance window to apply pending remaps.', 'If the rate keeps rising after the reset, drain the node and open an RMA.'],
      ),
    },

    // The row-remap failure flag stays set until the GPU is replaced. The page fires once,
    // in the event window after the flag first appears; the ticket follows while the GPU waits
    // for its RMA, and a cordon (the GPU is being handled) silences it.
    local remapFailed = e.fill(|||
      max by ($(gpu)) (DCGM_FI_DEV_ROW_REMAP_FAILURE) > 0
    |||, { gpu: std.join(', ', $.identity.gpu) }),
    // Shared by the page and its follow-up ticket, so that either can be removed alone.
    local rowRemapRunbook = hardware(
      'The GPU failed to remap a bad memory row: it has no spare rows left.',
      'New uncorrectable memory errors can no longer be contained; the GPU will corrupt data or crash jobs.',
      [q('Row-remap failure flag', fill('DCGM_FI_DEV_ROW_REMAP_FAILURE$(gpuSel)')), q('Uncorrectable errors in the last day', fill('increase(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL$(gpuSel)[1d])'))],
      [step('Is the flag still 1 after a GPU reset?', 'The GPU must be replaced: RMA.', 'Watch it: a transient flag after a reset is rare, so check the DCGM diagnostics (`dcgmi diag -r 3`).')],
      [cordon, drain, rma],
    ) {
      notes: ['The page fires once, in the ' + $.windows.event + ' after the flag first appears; while the flag stays set, GPURowRemapFailureUnrepaired follows as a ticket until the node is cordoned.'],
    },
    GPURowRemapFailure: hw {
      family: 'memory',
      severity: 'critical',
      // The flag's value before the event window is looked for up to windows.gap further back:
      // a Prometheus outage does not make a failed GPU page again when the data resumes.
      expr: attributed(e.fill(|||
        $(failed) unless max by ($(gpu)) (last_over_time(DCGM_FI_DEV_ROW_REMAP_FAILURE[$(gap)] offset $(window))) > 0
      |||, { failed: remapFailed, gpu: std.join(', ', $.identity.gpu), gap: w.gap, window: w.event })),
      summary: 'A GPU failed to remap a memory row and has no spare rows left.',
      description: gpuText + ' reports a row-remap failure: uncorrectable memory errors can no longer be contained. Drain it and open an RMA.',
      tests: [
        t.case('remap failed', true, [t.series('DCGM_FI_DEV_ROW_REMAP_FAILURE', '0x50 1x10')], value=1),
        t.case('remap failed an hour ago: the GPU awaits its RMA', false, [t.series('DCGM_FI_DEV_ROW_REMAP_FAILURE', '0x5 1x55')], alsoFires=[{ alert: 'GPURowRemapFailureUnrepaired', value: 1 }]),
        t.case('healthy', false, [t.series('DCGM_FI_DEV_ROW_REMAP_FAILURE', '0x60')]),
        t.case('failed long ago, the flag held across a 10-minute Prometheus outage', false, [t.series('DCGM_FI_DEV_ROW_REMAP_FAILURE', '1x40 _x10 1x9')]),
      ] + incidentCases(function(minute) [t.series('DCGM_FI_DEV_ROW_REMAP_FAILURE', '0x' + minute + ' 1x' + (60 - minute))], 1, alsoFires=[{ alert: 'GPURowRemapFailureUnrepaired', value: 1 }]),
      runbook: rowRemapRunbook,
    } + eventAlert,

    GPURowRemapFailureUnrepaired: hw {
      family: 'repair',
      severity: 'warning',
      expr: attributed(remapFailed),
      'for': w.event,
      summary: 'A GPU that failed a row remap is still in service, awaiting repair.',
      description: gpuText + ' has had no spare memory rows for at least ' + w.event + ' (paged when it failed): cordon the node while the RMA is open; the cordon silences this ticket.',
      tests: [
        t.case('awaiting repair', true, [t.series('DCGM_FI_DEV_ROW_REMAP_FAILURE', '0x5 1x55')], value=1),
        t.case('just failed: the page covers it', false, [t.series('DCGM_FI_DEV_ROW_REMAP_FAILURE', '0x55 1x5')], alsoFires=[{ alert: 'GPURowRemapFailure', value: 1 }]),
      ],
      runbook: rowRemapRunbook {
        meaning: 'A GPU that ran out of spare memory rows (paged as GPURowRemapFailure) is still in service: its node is not cordoned.',
        impact: 'New jobs can land on a GPU that will corrupt data or crash them.',
        diagnosis: [step('Is an RMA open for the GPU?', 'Cordon the node until it is replaced: the cordon silences this ticket.', 'Open one (see mitigation), then cordon the node.')],
        notes: ['This ticket repeats while the flag is set and the node schedulable; the cordon (GPUNodeCordoned) inhibits it.'],
      },
    },

    GPURetiredPagesPending: hw {
      family: 'memory',
      severity: 'warning',
      expr: e.fill(|||
        max by ($(id)) ($(retired)) > 0 or max by ($(id)) ($(remap)) > 0
      |||, { id: id, retired: $.exporter.workload('DCGM_FI_DEV_RETIRED_PENDING'), remap: $.exporter.workload('DCGM_FI_DEV_ROW_REMAP_PENDING') }),
      'for': '5m',
      summary: 'A GPU has memory pages or rows waiting for a reset to be retired or remapped.',
      description: gpuText + ' has pending page retirements or row remaps; they take effect at the next GPU reset.',
      tests: [
        t.case('pages pending', true, [t.series('DCGM_FI_DEV_RETIRED_PENDING', '0x40 1x20')], value=1),
        t.case('row remap pending', true, [t.series('DCGM_FI_DEV_ROW_REMAP_PENDING', '0x40 1x20')], value=1),
        t.case('nothing pending', false, [t.series('DCGM_FI_DEV_RETIRED_PENDING', '0x60'), t.series('DCGM_FI_DEV_ROW_REMAP_PENDING', '0x60')]),
      ],
      runbook: hardware(
        'Memory pages or rows were marked bad and wait for a GPU reset to be retired or remapped.',
        'Until the reset, the bad memory may still be used; errors there can crash jobs.',
        [q('Pending page retirements', fill('DCGM_FI_DEV_RETIRED_PENDING$(gpuSel)')), q('Pending row remaps', fill('DCGM_FI_DEV_ROW_REMAP_PENDING$(gpuSel)'))],
        [step('Is a job running on the GPU?', 'Reset when it ends: coordinate with the owner.', 'Reset now.')],
        [cordon, drain, reset],
      ),
    },
  },
}
