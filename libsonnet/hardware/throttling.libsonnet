// Clock throttling from the clock-event bitmask: sustained thermal, power (with SM clocks well
// below their maximum) and hardware slowdown each ticket, naming the workload on the GPU.
local e = import '../lib/expr.libsonnet';
local gpu = import '../lib/gpu.libsonnet';
local names = import '../lib/names.libsonnet';
local rb = import '../lib/runbook.libsonnet';
local t = import '../lib/test.libsonnet';
{
  thresholds+: {
    // Share of the window in which the throttle reason was set.
    throttleRatio: 0.5,
    // Power throttling costs performance when SM clocks sit below this share of their maximum.
    throttledClockRatio: 0.8,
  },

  windows+: {
    throttle: '15m',
  },

  // Reasons in the clock-event bitmask that mean real throttling. 0x1 (idle), 0x2 (application
  // clocks setting) and 0x100 (display clocks) are not throttling and appear nowhere here.
  throttleReasons: {
    power: { bits: [4, 128], help: 'SW power cap (0x4) or HW power brake (0x80)' },
    hw_slowdown: { bits: [8], help: 'HW slowdown (0x8)' },
    thermal: { bits: [32, 64], help: 'SW thermal slowdown (0x20) or HW thermal slowdown (0x40)' },
    // Sync boost holds the clocks of a group of GPUs to its slowest member: one slow GPU slows
    // every GPU synced with it (on L2, and in L3's bitmask panel; no alert of its own).
    // perGPU: false, as no alert reads its per-GPU flag: L3 shows it in the bitmask panel.
    sync_boost: { bits: [16], help: 'sync boost (0x10): clocks held to the slowest GPU of a sync-boost group', perGPU:: false },
  },

  alerts+: {
    local g = gpu($),
    local fill = g.fill,
    local th = $.thresholds,
    local w = $.windows,
    local hw = g.owner,
    local gpuText = g.gpuText,
    local attributed = g.attributed,
    local q = rb.query,
    local step = rb.step,
    local gpuSel = g.gpuSel,
    local cordon = g.cordon,
    local hardware = g.hardware,

    // Sustained throttling reads the per-GPU recorded flags; each alert names the workload on
    // the GPU. A GPU at its power limit sets the SW power-cap bit much of the time without
    // losing much: power throttling needs evidence, SM clocks well below their maximum. HW
    // slowdown comes with HW thermal slowdown or the HW power brake: it tickets only when
    // neither the thermal nor the power ticket explains it.
    local throttled(reason) = e.fill(|||
      avg_over_time($(flag)[$(window)]) > $(ratio)
    |||, { flag: names.gpuThrottle(reason), window: w.throttle, ratio: std.toString(th.throttleRatio) }),
    local gpuJoin = std.join(', ', $.identity.gpuJoin),
    local clocksLow = e.fill(|||
      max by ($(gpuJoin)) (DCGM_FI_DEV_SM_CLOCK) < $(ratio) * max by ($(gpuJoin)) (DCGM_FI_DEV_MAX_SM_CLOCK)
    |||, { gpuJoin: gpuJoin, ratio: std.toString(th.throttledClockRatio) }),
    local condition = {
      thermal: throttled('thermal'),
      power: e.fill(|||
        $(power) and on ($(gpuJoin)) $(clocksLow)
      |||, { power: throttled('power'), gpuJoin: gpuJoin, clocksLow: clocksLow }),
      // HW slowdown lowers the clocks by itself: wherever the power flag is sustained too, the
      // power ticket's evidence holds, so the flags alone decide.
      hw_slowdown: e.fill(|||
        $(slowdown) unless on ($(gpuJoin)) ($(thermal) or $(power))
      |||, { slowdown: throttled('hw_slowdown'), gpuJoin: gpuJoin, thermal: throttled('thermal'), power: throttled('power') }),
    },
    local bitmask = $.exporter.throttleReasonsField,
    local bitsOf(reason) = $.throttleReasons[reason].bits,
    // SM clocks: at their maximum, then well below it (lost performance) from minute 30.
    local maxClock = 1980,
    local clocks(low) = [
      t.series('DCGM_FI_DEV_MAX_SM_CLOCK', maxClock + 'x60'),
      t.series('DCGM_FI_DEV_SM_CLOCK', t.steps([[maxClock, 30], [if low then std.floor(maxClock * th.throttledClockRatio / 2) else maxClock, 30]])),
    ],
    local throttling(reason, cause, fix) = hardware(
      'The GPU has had its clocks lowered by ' + $.throttleReasons[reason].help + ' for most of the last ' + $.windows.throttle + '.',
      'The job on the GPU runs slower than it should; in a multi-GPU job every rank waits for this one.',
      [
        q('The clock-event bitmask (decode it: 0x4 power cap, 0x8 HW slowdown, 0x20/0x40 thermal, 0x80 power brake)', $.exporter.throttleReasonsField + gpuSel),
        q('Share of the last ' + $.windows.throttle + ' throttled', fill('avg_over_time(gpu:dcgm_clock_throttle_$(reason):max$(gpuSel)[$(throttle)])', { reason: reason, throttle: $.windows.throttle })),
        q('SM clock', fill('DCGM_FI_DEV_SM_CLOCK$(gpuSel)')),
        q('Power and temperature', fill('DCGM_FI_DEV_POWER_USAGE$(gpuSel) or DCGM_FI_DEV_GPU_TEMP$(gpuSel)')),
      ],
      [
        step('Is the whole node throttled the same way?', 'Node-level cause (' + cause + '): fix the node.'),
        step('Did the throttling start with a new job?', 'The workload is at the limit: expected for power-heavy kernels; tell the owner.', fix),
      ],
      [fix, 'If the GPU throttles alone under normal load, ' + cordon + ' and have it serviced.'],
    ),
    local throttle(reason, summary, cases) = hw {
      family: if reason == 'thermal' then 'thermal' else 'power',
      severity: 'warning',
      expr: attributed(condition[reason]),
      panelThresholds:: { [names.gpuThrottle(reason)]: th.throttleRatio },
      'for': '5m',
      summary: summary,
      description: gpuText + ' has been throttled (' + $.throttleReasons[reason].help + ') for {{ $value | humanizePercentage }} of the last ' + w.throttle + '.',
      tests: [
        t.case('sustained', true, [t.series(bitmask, t.steps([[0, 30], [bitsOf(reason)[0], 30]]))] + clocks(true), value=1),
        t.case('idle and application clocks only', false, [t.series(bitmask, '3x60')]),
        t.case('short burst', false, [t.series(bitmask, t.steps([[0, 52], [bitsOf(reason)[0], 8]]))] + clocks(true)),
      ] + cases,
    },

    local thermalBits = std.foldl(function(a, b) a + b, bitsOf('thermal'), 0),
    GPUThermalThrottling: throttle('thermal', 'A GPU has been thermally throttled for most of the last ' + w.throttle + '.', [
      t.case('all reason bits set', true, [t.series(bitmask, t.steps([[0, 30], [511, 30]]))] + clocks(true), value=1, alsoFires=[{ alert: 'GPUPowerThrottling', value: 1 }]),
      t.case('HW slowdown with HW thermal slowdown: one thermal ticket', true, [t.series(bitmask, t.steps([[0, 30], [bitsOf('hw_slowdown')[0] + thermalBits, 30]]))], value=1),
    ]) {
      runbook: throttling('thermal', 'cooling, inlet temperature', 'Check cooling (fans, airflow); drain the node if one GPU throttles alone.'),
    },
    GPUPowerThrottling: throttle('power', 'A GPU has been power-capped for most of the last ' + w.throttle + ', with its SM clocks below ' + e.percent(th.throttledClockRatio) + ' % of their maximum.', [
      t.case('power cap at full clocks (a GPU at its power limit)', false, [t.series(bitmask, t.steps([[0, 30], [bitsOf('power')[0], 30]]))] + clocks(false)),
      t.case('HW power brake with HW slowdown: one power ticket', true, [t.series(bitmask, t.steps([[0, 30], [bitsOf('hw_slowdown')[0] + bitsOf('power')[1], 30]]))] + clocks(true), value=1),
    ]) {
      runbook: throttling('power', 'power capping, PSU, rack power budget', "Check the power limit (`nvidia-smi -q -d POWER`) against the SKU default and the rack's power budget."),
    },
    GPUHwSlowdown: throttle('hw_slowdown', 'A GPU has been held in hardware slowdown for most of the last ' + w.throttle + '.', []) {
      runbook: throttling('hw_slowdown', 'external power brake, PSU or overheating board', 'HW slowdown is signalled by the board (power brake, overtemperature): have the node serviced.'),
    },
  },
}
