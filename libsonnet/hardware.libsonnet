// Hardware health: thresholds, XID classes and the tiered hardware alerts.
//
// Alert fields: family, severity (critical pages, warning tickets, info), team, expr, for,
// summary (plain sentence), description (Prometheus template), identity (labels the alert keeps),
// and tests: promtool scenarios, each on its own synthetic GPU (see gpuobs.libsonnet).
local names = import 'lib/names.libsonnet';
local t = import 'lib/test.libsonnet';
{
  thresholds: {
    eccSingleBitPerHour: 100,
    gpuTemperatureCelsius: 85,
    memoryTemperatureCelsius: 95,
    nvlinkCrcErrorsPerMinute: 1,
    nvlinkReplayErrorsPerMinute: 5,
    pcieReplaysPerMinute: 10,
    // Share of the window in which the throttle reason was set.
    throttleRatio: 0.5,
  },

  windows: {
    // How long an XID or ECC event keeps its alert firing.
    event: '10m',
    eccRate: '1h',
    throttle: '15m',
    // How far back a GPU that stopped reporting is remembered.
    missing: '1h',
  },

  // Reasons in the clock-event bitmask that mean real throttling. 0x1 (idle), 0x2 (application
  // clocks setting) and 0x100 (display clocks) are not throttling and appear nowhere here.
  throttleReasons: {
    power: { bits: [4, 128], help: 'SW power cap (0x4) or HW power brake (0x80)' },
    hw_slowdown: { bits: [8], help: 'HW slowdown (0x8)' },
    thermal: { bits: [32, 64], help: 'SW thermal slowdown (0x20) or HW thermal slowdown (0x40)' },
  },

  // XID classes. The value of DCGM_FI_DEV_XID_ERRORS is the last XID seen.
  xid: {
    fellOffBus: [79],
    fatal: [48, 62, 64, 95, 119, 120],
    hardware: [63, 74, 92, 94],
    application: [13, 31, 43, 45],
  },

  // Recording rules the alerts read. XID events are detected once for the whole fleet, and the
  // XID alerts filter the (tiny) result by code.
  local xidRecord = 'gpu_pod:dcgm_xid_errors:new' + $.windows.event,
  local exporterHost = 'instance:dcgm_exporter_host:group',
  records+: {
    // Which host each exporter target serves, for alerts on the target (up has no host label).
    [exporterHost]: {
      family: 'exporter',
      expr: 'group by (' + $.labels.cluster + ', instance, ' + $.labels.host + ') (' + $.exporter.healthField + ')',
    },
    // The gauge holds the last XID forever, so an event is a changed value in the same series,
    // or a new series (err_code label changed); an old value never counts again.
    [xidRecord]: {
      local x = 'DCGM_FI_DEV_XID_ERRORS',
      local w = $.windows.event,
      family: 'xid',
      expr: 'max by (' + std.join(', ', $.identity.alert) + ') ('
            + '(' + x + ' > 0 unless on (' + std.join(', ', $.identity.gpu) + ', err_code) (' + x + ' offset ' + w + '))'
            + ' or '
            + '(' + x + ' > 0 and changes(' + x + '[' + w + ']) > 0)'
            + ')',
    },
  },

  alerts: {
    local l = $.labels,
    local id = std.join(', ', $.identity.alert),
    local gpuText = 'GPU {{ $labels.' + l.gpu + ' }} ({{ $labels.' + l.uuid + ' }}) on {{ $labels.' + l.host + ' }}',
    local th = $.thresholds,
    local w = $.windows,
    // Families group alerts for rule groups and inhibition (a page inhibits the tickets of its
    // family on the same GPU); every hardware alert goes to infra.
    local hw = { team: 'infra' },
    // A per-GPU expression with the identity of the pods on the GPU attached, from the recorded
    // GPU-to-pod map.
    local attributed(expr) = '(' + expr + ') * on (' + std.join(', ', $.identity.gpuJoin) + ') group_right () ' + names.gpuInfo,

    local xidCases(code, other, otherAlert) = [
      t.case('new XID', true, [t.series('DCGM_FI_DEV_XID_ERRORS', '_x55 ' + code + 'x5', { err_code: std.toString(code) })], value=code),
      t.case('value changes in place (exporter without err_code)', true, [t.series('DCGM_FI_DEV_XID_ERRORS', '0x57 ' + code + 'x3')], value=code, pod=false),
      t.case('old XID still held', false, [t.series('DCGM_FI_DEV_XID_ERRORS', code + 'x60', { err_code: std.toString(code) })]),
      t.case('other XID class', false, [t.series('DCGM_FI_DEV_XID_ERRORS', '_x55 ' + other + 'x5', { err_code: std.toString(other) })], alsoFires=[{ alert: otherAlert, value: other }]),
    ],
    local xidAlert(severity, codes, summary, what, other, otherAlert) = hw {
      family: 'xid',
      severity: severity,
      expr: std.join(' or ', [xidRecord + ' == ' + c for c in codes]),
      summary: summary,
      description: gpuText + ' reported XID {{ $value | printf "%.0f" }} (' + what + ') in the last ' + w.event + '.',
      tests: xidCases(codes[0], other, otherAlert),
    },

    GPUFellOffBus: xidAlert('critical', $.xid.fellOffBus, 'A GPU has fallen off the bus.', 'GPU fell off the bus', 48, 'GPUXidFatal'),
    GPUXidFatal: xidAlert('critical', $.xid.fatal, 'A GPU reported a fatal XID error.', 'fatal', 13, 'GPUXidApplication'),
    GPUXidHardware: xidAlert('warning', $.xid.hardware, 'A GPU reported a hardware XID error that needs a look.', 'hardware', 79, 'GPUFellOffBus'),
    GPUXidApplication: xidAlert('info', $.xid.application, 'A GPU reported an application XID error.', 'usually the application', 48, 'GPUXidFatal'),
    // An XID in none of the classes still reaches a human: newer drivers emit codes the lists
    // do not know (154: a reset or reboot is required).
    local classified = std.set(std.flattenArrays([$.xid[c] for c in std.objectFields($.xid)])),
    local unclassified = std.foldl(std.max, classified, 0) + 1000,
    GPUXidUnclassified: hw {
      family: 'xid',
      severity: 'warning',
      expr: xidRecord + ' unless (' + std.join(' or ', [xidRecord + ' == ' + c for c in classified]) + ')',
      summary: 'A GPU reported an XID error that no class of the catalog lists.',
      description: gpuText + ' reported XID {{ $value | printf "%.0f" }} in the last ' + w.event + '; no class of the catalog (xid) lists it: look it up and add it to one.',
      tests: [
        t.case('new unclassified XID', true, [t.series('DCGM_FI_DEV_XID_ERRORS', '_x55 ' + unclassified + 'x5', { err_code: std.toString(unclassified) })], value=unclassified),
        t.case('old unclassified XID still held', false, [t.series('DCGM_FI_DEV_XID_ERRORS', unclassified + 'x60', { err_code: std.toString(unclassified) })]),
        t.case('classified XID', false, [t.series('DCGM_FI_DEV_XID_ERRORS', '_x55 ' + $.xid.fatal[0] + 'x5', { err_code: std.toString($.xid.fatal[0]) })], alsoFires=[{ alert: 'GPUXidFatal', value: $.xid.fatal[0] }]),
      ],
    },

    GPUEccDoubleBit: hw {
      family: 'memory',
      severity: 'critical',
      expr: 'max by (' + id + ') (increase(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL[' + w.event + '])) > 0',
      summary: 'A GPU reported uncorrectable (double-bit) ECC errors.',
      description: gpuText + ' logged {{ $value | printf "%.0f" }} double-bit ECC errors in the last ' + w.event + '.',
      tests: [
        t.case('new DBE', true, [t.series('DCGM_FI_DEV_ECC_DBE_VOL_TOTAL', '0x57 1x3')], value=1),
        t.case('new DBE on a MIG GPU', true, [t.series('DCGM_FI_DEV_ECC_DBE_VOL_TOTAL', '0x57 1x3')], value=1, mig=true),
        t.case('old DBE, none since', false, [t.series('DCGM_FI_DEV_ECC_DBE_VOL_TOTAL', '2x60')]),
        t.case('counter reset by driver reload', false, [t.series('DCGM_FI_DEV_ECC_DBE_VOL_TOTAL', '3x50 0x10')]),
      ],
    },

    GPUEccSingleBitRate: hw {
      family: 'memory',
      severity: 'warning',
      expr: 'max by (' + id + ') (increase(DCGM_FI_DEV_ECC_SBE_VOL_TOTAL[' + w.eccRate + '])) > ' + th.eccSingleBitPerHour,
      'for': '5m',
      summary: 'A GPU is logging correctable (single-bit) ECC errors at a high rate.',
      description: gpuText + ' logged {{ $value | printf "%.0f" }} single-bit ECC errors in the last ' + w.eccRate + ' (threshold ' + th.eccSingleBitPerHour + ').',
      tests: [
        // Scenario values follow the threshold, so the tests hold for any override.
        t.case('SBE spike', true, [t.series('DCGM_FI_DEV_ECC_SBE_VOL_TOTAL', t.risingPerHour(2 * th.eccSingleBitPerHour))], value=2 * th.eccSingleBitPerHour),
        t.case('a trickle of SBEs', false, [t.series('DCGM_FI_DEV_ECC_SBE_VOL_TOTAL', t.risingPerHour(th.eccSingleBitPerHour / 2))]),
      ],
    },

    GPURowRemapFailure: hw {
      family: 'memory',
      severity: 'critical',
      expr: 'max by (' + id + ') (DCGM_FI_DEV_ROW_REMAP_FAILURE) > 0',
      summary: 'A GPU failed to remap a memory row and has no spare rows left.',
      description: gpuText + ' reports a row-remap failure: uncorrectable memory errors can no longer be contained. Drain it and open an RMA.',
      tests: [
        t.case('remap failed', true, [t.series('DCGM_FI_DEV_ROW_REMAP_FAILURE', '0x50 1x10')], value=1),
        t.case('healthy', false, [t.series('DCGM_FI_DEV_ROW_REMAP_FAILURE', '0x60')]),
      ],
    },

    GPURetiredPagesPending: hw {
      family: 'memory',
      severity: 'warning',
      expr: 'max by (' + id + ') (DCGM_FI_DEV_RETIRED_PENDING) > 0 or max by (' + id + ') (DCGM_FI_DEV_ROW_REMAP_PENDING) > 0',
      'for': '5m',
      summary: 'A GPU has memory pages or rows waiting for a reset to be retired or remapped.',
      description: gpuText + ' has pending page retirements or row remaps; they take effect at the next GPU reset.',
      tests: [
        t.case('pages pending', true, [t.series('DCGM_FI_DEV_RETIRED_PENDING', '0x40 1x20')], value=1),
        t.case('row remap pending', true, [t.series('DCGM_FI_DEV_ROW_REMAP_PENDING', '0x40 1x20')], value=1),
        t.case('nothing pending', false, [t.series('DCGM_FI_DEV_RETIRED_PENDING', '0x60'), t.series('DCGM_FI_DEV_ROW_REMAP_PENDING', '0x60')]),
      ],
    },

    // Error rates read the per-GPU rates that the recording rules keep anyway.
    local perMinute(field, threshold) = names.gpuRate(field, $.recording.rateWindow) + ' * 60 > ' + threshold,

    GPUNvlinkCrcErrors: hw {
      family: 'nvlink',
      severity: 'warning',
      expr: attributed(perMinute('DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL', th.nvlinkCrcErrorsPerMinute)
                       + ' or ' + perMinute('DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL', th.nvlinkCrcErrorsPerMinute)),
      'for': '10m',
      summary: 'A GPU is seeing NVLink CRC errors.',
      description: gpuText + ' sees {{ $value | printf "%.1f" }} NVLink CRC errors per minute (threshold ' + th.nvlinkCrcErrorsPerMinute + ').',
      tests: [
        t.case('flit CRC errors', true, [t.series('DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL', t.risingPerMinute(10 * th.nvlinkCrcErrorsPerMinute))], value=10 * th.nvlinkCrcErrorsPerMinute),
        t.case('data CRC errors', true, [t.series('DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL', t.risingPerMinute(4 * th.nvlinkCrcErrorsPerMinute))], value=4 * th.nvlinkCrcErrorsPerMinute),
        t.case('rare CRC errors', false, [t.series('DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL', t.risingPerMinute(th.nvlinkCrcErrorsPerMinute / 2))]),
      ],
    },

    GPUNvlinkReplayErrors: hw {
      family: 'nvlink',
      severity: 'warning',
      expr: attributed(perMinute('DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL', th.nvlinkReplayErrorsPerMinute)),
      'for': '10m',
      summary: 'A GPU is replaying NVLink transfers at a high rate.',
      description: gpuText + ' replays {{ $value | printf "%.1f" }} NVLink transfers per minute (threshold ' + th.nvlinkReplayErrorsPerMinute + ').',
      tests: [
        t.case('replays', true, [t.series('DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL', t.risingPerMinute(4 * th.nvlinkReplayErrorsPerMinute))], value=4 * th.nvlinkReplayErrorsPerMinute),
        t.case('few replays', false, [t.series('DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL', t.risingPerMinute(th.nvlinkReplayErrorsPerMinute / 2))]),
      ],
    },

    GPUNvlinkRecoveryErrors: hw {
      family: 'nvlink',
      severity: 'warning',
      expr: 'max by (' + id + ') (increase(DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL[' + w.throttle + '])) > 0',
      summary: 'An NVLink of a GPU had to be recovered (retrained).',
      description: gpuText + ' logged {{ $value | printf "%.0f" }} NVLink recovery errors in the last ' + w.throttle + '.',
      tests: [
        t.case('link recovery', true, [t.series('DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL', '0x56 2x4')], value=2),
        t.case('old recovery', false, [t.series('DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL', '0x20 2x40')]),
      ],
    },

    GPUPcieReplayRate: hw {
      family: 'pcie',
      severity: 'warning',
      expr: attributed(perMinute('DCGM_FI_DEV_PCIE_REPLAY_COUNTER', th.pcieReplaysPerMinute)),
      'for': '10m',
      summary: 'A GPU is replaying PCIe transfers at a high rate.',
      description: gpuText + ' replays {{ $value | printf "%.1f" }} PCIe transfers per minute (threshold ' + th.pcieReplaysPerMinute + '): check the riser, slot and link width.',
      tests: [
        t.case('bad link', true, [t.series('DCGM_FI_DEV_PCIE_REPLAY_COUNTER', t.risingPerMinute(3 * th.pcieReplaysPerMinute))], value=3 * th.pcieReplaysPerMinute),
        t.case('healthy link', false, [t.series('DCGM_FI_DEV_PCIE_REPLAY_COUNTER', t.risingPerMinute(th.pcieReplaysPerMinute / 10))]),
      ],
    },

    local gaugeAbove(field, threshold) = 'max by (' + id + ') (' + field + ') > ' + threshold,

    GPUTemperatureHigh: hw {
      family: 'thermal',
      severity: 'warning',
      expr: gaugeAbove('DCGM_FI_DEV_GPU_TEMP', th.gpuTemperatureCelsius),
      'for': '15m',
      summary: 'A GPU has been running hot for 15 minutes.',
      description: gpuText + ' is at {{ $value | printf "%.0f" }} °C (threshold ' + th.gpuTemperatureCelsius + ' °C).',
      tests:
        local hot = th.gpuTemperatureCelsius + 5, cool = th.gpuTemperatureCelsius - 20;
        [
          t.case('sustained heat', true, [t.series('DCGM_FI_DEV_GPU_TEMP', t.steps([[cool, 30], [hot, 30]]))], value=hot, health=false),
          t.case('sustained heat on a MIG GPU', true, [t.series('DCGM_FI_DEV_GPU_TEMP', t.steps([[cool, 30], [hot, 30]]))], value=hot, health=false, mig=true),
          t.case('two-minute blip', false, [t.series('DCGM_FI_DEV_GPU_TEMP', t.steps([[cool, 40], [hot, 2], [cool, 18]]))], health=false),
          t.case('heat still under for', false, [t.series('DCGM_FI_DEV_GPU_TEMP', t.steps([[cool, 50], [hot, 10]]))], health=false),
        ],
    },

    GPUMemoryTemperatureHigh: hw {
      family: 'thermal',
      severity: 'warning',
      expr: gaugeAbove('DCGM_FI_DEV_MEMORY_TEMP', th.memoryTemperatureCelsius),
      'for': '15m',
      summary: 'A GPU memory (HBM) has been running hot for 15 minutes.',
      description: 'Memory of ' + gpuText + ' is at {{ $value | printf "%.0f" }} °C (threshold ' + th.memoryTemperatureCelsius + ' °C).',
      tests:
        local hot = th.memoryTemperatureCelsius + 5, cool = th.memoryTemperatureCelsius - 20;
        [
          t.case('hot HBM', true, [t.series('DCGM_FI_DEV_MEMORY_TEMP', t.steps([[cool, 30], [hot, 30]]))], value=hot),
          t.case('two-minute blip', false, [t.series('DCGM_FI_DEV_MEMORY_TEMP', t.steps([[cool, 40], [hot, 2], [cool, 18]]))]),
        ],
    },

    // Sustained throttling reads the per-GPU recorded flags; each alert names the workload on
    // the GPU.
    local throttle(reason, summary) =
      local rec = names.gpuThrottle(reason);
      local bits = $.throttleReasons[reason].bits;
      local mask = std.foldl(function(a, b) a + b, bits, 0);
      hw {
        family: if reason == 'thermal' then 'thermal' else 'power',
        severity: 'warning',
        expr: attributed('avg_over_time(' + rec + '[' + w.throttle + ']) > ' + th.throttleRatio),
        'for': '5m',
        summary: summary,
        description: gpuText + ' has been throttled (' + $.throttleReasons[reason].help + ') for {{ $value | humanizePercentage }} of the last ' + w.throttle + '.',
        tests: [
          t.case('sustained', true, [t.series($.exporter.throttleReasonsField, t.steps([[0, 30], [bits[0], 30]]))], value=1),
          t.case('all reason bits set', true, [t.series($.exporter.throttleReasonsField, t.steps([[0, 30], [mask + 1, 30]]))], value=1),
          t.case('idle and application clocks only', false, [t.series($.exporter.throttleReasonsField, '3x60')]),
          t.case('short burst', false, [t.series($.exporter.throttleReasonsField, t.steps([[0, 52], [bits[0], 8]]))]),
        ],
      },

    GPUThermalThrottling: throttle('thermal', 'A GPU has been thermally throttled for most of the last 15 minutes.'),
    GPUPowerThrottling: throttle('power', 'A GPU has been power-capped for most of the last 15 minutes.'),
    GPUHwSlowdown: throttle('hw_slowdown', 'A GPU has been held in hardware slowdown for most of the last 15 minutes.'),

    // The exporter's host comes from the instance-to-host map of the last hour, so that the
    // alert can inhibit the alerts of that node; an exporter unseen for longer alerts without it.
    DCGMExporterDown: hw {
      family: 'exporter',
      severity: 'warning',
      local down = 'up{job="' + $.exporter.job + '"} == 0',
      expr: '(' + down + ') * on (' + l.cluster + ', instance) group_left (' + l.host + ') '
            + 'topk by (' + l.cluster + ', instance) (1, last_over_time(' + exporterHost + '[' + w.missing + ']))'
            + ' or on (' + l.cluster + ', instance) (' + down + ')',
      'for': '5m',
      identity: [l.cluster, 'instance', 'job', l.host],
      summary: 'A dcgm-exporter target is down: its GPUs are unmonitored.',
      description: 'dcgm-exporter {{ $labels.instance }} on {{ $labels.' + l.host + ' }} in cluster {{ $labels.' + l.cluster + ' }} has been down for 5 minutes; none of its GPU alerts can fire.',
      tests: [
        t.case('exporter down', true, [], up='1x30 0x30', health='65x30 _x30', value=0),
        t.case('exporter down since before the host map remembers', true, [], up='0x60', health=false, value=0, without=[l.host]),
        t.case('one failed scrape', false, [], up='1x58 0 1'),
      ],
    },

    GPUSeriesMissing: hw {
      family: 'exporter',
      severity: 'warning',
      local h = $.exporter.healthField,
      expr: 'max by (' + id + ') ('
            + 'present_over_time(' + h + '[' + w.missing + '])'
            + ' unless on (' + l.cluster + ', instance) (up{job="' + $.exporter.job + '"} == 0)'
            + ') unless on (' + std.join(', ', $.identity.gpuJoin) + ') ' + h,
      'for': '10m',
      summary: 'A GPU stopped reporting while its exporter is up.',
      description: gpuText + ' stopped reporting ' + h + ' although its exporter is up: the GPU may have fallen off the bus or the driver lost it.',
      tests: [
        t.case('GPU vanished', true, [], health='65x30 _x30', value=1),
        t.case('exporter down too', false, [], health='65x30 _x30', up='1x30 0x30', alsoFires=[{ alert: 'DCGMExporterDown', value: 0 }]),
        t.case('pod changed on the GPU', false, [], health='65x30 _x30', extraHealth='_x31 65x29'),
      ],
    },
  },
}
