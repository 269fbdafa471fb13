// GPU and memory temperature: above their limits for long, and a GPU much hotter than the
// GPUs of its SKU at the same load across the fleet (shard records the global layer combines).
local e = import '../lib/expr.libsonnet';
local gpu = import '../lib/gpu.libsonnet';
local rb = import '../lib/runbook.libsonnet';
local t = import '../lib/test.libsonnet';
{
  thresholds+: {
    gpuTemperatureCelsius: 85,
    memoryTemperatureCelsius: 95,
    // A GPU this much hotter than the fleet-wide average of its SKU is suspect on its own...
    gpuTemperatureAboveFleetPeersCelsius: 15,
    // ...among this many hottest GPUs of each SKU in each cluster: the shard picks them, so the
    // global layer compares a few series per shard instead of every GPU's.
    fleetPeersCandidates: 3,
    // ...each against the GPUs of its SKU at the same load: busy (GPU_UTIL at least this share)
    // or idle, so that a node gone idle and cool does not lower the average busy GPUs meet.
    fleetPeersBusyUtilizationRatio: 0.5,
  },

  // A utilization share in the unit the exporter reports GPU_UTIL in.
  local utilization(ratio) = if $.fields.DCGM_FI_DEV_GPU_UTIL.unit == 'percent' then 100 * ratio else ratio,
  records+: {
    // GPU temperature summed and counted per cluster, SKU and load (busy: GPU_UTIL at least
    // thresholds.fleetPeersBusyUtilizationRatio; idle otherwise), for each SKU's fleet-wide
    // average by load: shard records a sharded fleet's global layer combines, instead of
    // reading every GPU's series. A busy GPU is compared with busy peers and an idle one with
    // idle peers, so a node gone idle and cool does not make the busy GPUs of its SKU read hot.
    // byLoad(agg) applies agg (a function of an expression) to the busy GPUs' temperatures and
    // to the idle ones', and labels
    // each result with its load (after aggregating: relabeling every GPU's series costs more).
    local byLoad(agg) =
      local busy = e.fill(|||
        (max $(by) (DCGM_FI_DEV_GPU_UTIL) >= $(threshold))
      |||, { by: e.by($.identity.gpuJoin), threshold: e.num(utilization($.thresholds.fleetPeersBusyUtilizationRatio)) });
      // op: 'and' keeps the busy GPUs' temperatures, 'unless' the idle ones'.
      local temps(op) = e.fill(|||
        gpu:dcgm_gpu_temp:max $(op) $(on) $(busy)
      |||, { op: op, on: e.on($.identity.gpuJoin), busy: busy });
      local as(load, op) = e.fill(|||
        label_replace($(aggregated), "load", "$(load)", "", "")
      |||, { aggregated: agg(temps(op)), load: load });
      e.fill(|||
        $(busy) or $(idle)
      |||, { busy: as('busy', 'and'), idle: as('idle', 'unless') }),
    local bySKU = e.by([$.labels.cluster, $.labels.modelName]),
    'cluster_sku_load:dcgm_gpu_temp:sum': {
      family: 'thermal',
      expr: byLoad(function(temps) e.fill(|||
        sum $(by) ($(temps))
      |||, { by: bySKU, temps: temps })),
    },
    'cluster_sku_load:dcgm_gpu_temp:count': {
      family: 'thermal',
      expr: byLoad(function(temps) e.fill(|||
        count $(by) ($(temps))
      |||, { by: bySKU, temps: temps })),
    },
    // The hottest GPUs of each SKU and load in each cluster, with their identity: the
    // candidates the global layer compares with the fleet (reading every GPU there costs
    // seconds at 100k GPUs).
    'gpu:dcgm_gpu_temp:top': {
      family: 'thermal',
      expr: byLoad(function(temps) e.fill(|||
        topk $(by) ($(k), $(temps))
      |||, { by: bySKU, k: e.num($.thresholds.fleetPeersCandidates), temps: temps })),
    },
    // The fleet-wide average temperature of each SKU by load (a global record on a sharded fleet).
    'fleet_sku_load:dcgm_gpu_temp:avg': {
      family: 'thermal',
      expr: e.fill(|||
        sum $(by) (cluster_sku_load:dcgm_gpu_temp:sum) / sum $(by) (cluster_sku_load:dcgm_gpu_temp:count)
      |||, { by: e.by([$.labels.modelName, 'load']) }),
    },
  },

  alerts+: {
    local g = gpu($),
    local fill = g.fill,
    local l = $.labels,
    local id = std.join(', ', $.identity.alert),
    local th = $.thresholds,
    local hw = g.owner,
    local gpuText = g.gpuText,
    local q = rb.query,
    local step = rb.step,
    local nodeSel = g.nodeSel,
    local cordon = g.cordon,
    local hardware = g.hardware,

    local gaugeAbove(field, threshold) = e.fill(|||
      max by ($(id)) ($(field)) > $(threshold)
    |||, { id: id, field: $.exporter.workload(field), threshold: std.toString(threshold) }),

    local thermal(alert, what, field, limit) = hardware(
      "The GPU's " + what + ' has stayed above ' + e.num(limit) + ' °C for ' + $.alerts[alert]['for'] + '.',
      'The GPU throttles its clocks to protect itself: jobs slow down; sustained heat shortens its life.',
      [
        q(what + ' on every GPU of the node', field + nodeSel),
        q('Thermal throttling on the node', fill('gpu:dcgm_clock_throttle_thermal:max$(nodeSel)')),
        q('Power draw against the limit', fill('DCGM_FI_DEV_POWER_USAGE$(gpuSel)')),
      ],
      [
        step('Are all GPUs of the node hot?', 'Cooling problem on the node or rack (fans, airflow, inlet temperature): facilities.'),
        step('Is this GPU hot while its neighbours at the same load are not?', 'Suspect the heatsink or thermal paste: drain and service.', 'Heavy load within spec: keep watching.'),
      ],
      ["Check the node's fans and inlet temperature with the datacenter team.", cordon, 'If one GPU runs hot alone, drain it for hardware service.'],
    ),

    GPUTemperatureHigh: hw {
      family: 'thermal',
      severity: 'warning',
      expr: gaugeAbove('DCGM_FI_DEV_GPU_TEMP', th.gpuTemperatureCelsius),
      panelThresholds:: { DCGM_FI_DEV_GPU_TEMP: th.gpuTemperatureCelsius },
      'for': '15m',
      summary: 'A GPU has been running hot for ' + self['for'] + '.',
      description: gpuText + ' is at {{ $value | printf "%.0f" }} °C (threshold ' + e.num(th.gpuTemperatureCelsius) + ' °C).',
      tests:
        local hot = th.gpuTemperatureCelsius + 5, cool = th.gpuTemperatureCelsius - 20;
        [
          t.case('sustained heat', true, [t.series('DCGM_FI_DEV_GPU_TEMP', t.steps([[cool, 30], [hot, 30]]))], value=hot, health=false),
          t.case('sustained heat on a MIG GPU', true, [t.series('DCGM_FI_DEV_GPU_TEMP', t.steps([[cool, 30], [hot, 30]]))], value=hot, health=false, mig=true),
          t.case('two-minute blip', false, [t.series('DCGM_FI_DEV_GPU_TEMP', t.steps([[cool, 40], [hot, 2], [cool, 18]]))], health=false),
          t.case('heat still under for', false, [t.series('DCGM_FI_DEV_GPU_TEMP', t.steps([[cool, 50], [hot, 10]]))], health=false),
        ],
      runbook: thermal('GPUTemperatureHigh', 'core temperature', 'DCGM_FI_DEV_GPU_TEMP', $.thresholds.gpuTemperatureCelsius),
    },

    // A GPU far hotter than its SKU's fleet-wide average, below the absolute threshold: a
    // failing fan, blocked airflow or dried thermal interface shows long before the GPU
    // throttles. On a sharded fleet it needs both layers: the GPU's record from its shard and
    // the SKU's average from the global layer.
    GPUHotterThanFleetPeers: hw {
      local above = th.gpuTemperatureAboveFleetPeersCelsius,
      family: 'thermal',
      severity: 'warning',
      // Without the load label: a GPU whose load changes stays one alert.
      expr: e.fill(|||
        max $(by) (gpu:dcgm_gpu_temp:top - $(on) group_left () fleet_sku_load:dcgm_gpu_temp:avg) > $(threshold)
      |||, { by: e.by($.identity.gpu), on: e.on([l.modelName, 'load']), threshold: e.num(above) }),
      'for': '30m',
      identity: $.identity.gpu,
      summary: 'A GPU runs far hotter than the GPUs of its model across the fleet.',
      description: gpuText + ' runs {{ $value | printf "%.0f" }} °C above the fleet-wide average of {{ $labels.' + l.modelName + ' }} GPUs at its load (busy or idle; threshold ' + e.num(above) + ' °C): check its fans, airflow and thermal interface before it throttles.',
      tests:
        // Four GPUs without pods (an unpriced SKU stays quiet) of a SKU no other scenario uses
        // (the fleet average spans every scenario); the busy ones report GPU_UTIL.
        local case(name, fires, sku, temps, busy=[], value=null) =
          t.case(name, fires, [t.series('DCGM_FI_DEV_GPU_TEMP', temps[i], entities=[i]) for i in std.range(0, 3)]
                              + [
                                t.series('DCGM_FI_DEV_GPU_UTIL', e.num(utilization(0.9)) + 'x60', entities=[i])
                                for i in busy
                              ], gpus=4, models=[sku, sku, sku, sku], pod=false, health=false, value=value, firing=if fires then [0] else null);
        local peer = th.gpuTemperatureCelsius - 30, hot = peer + 2 * above, cooled = peer - 2.5 * above;
        [
          case('one GPU far hotter than its busy peers', true, 'NVIDIA A10G', [t.steps([[peer, 20], [hot, 40]])] + [peer + 'x60' for i in [1, 2, 3]], busy=[0, 1, 2, 3], value=hot - (hot + 3 * peer) / 4),
          case('one idle GPU far hotter than its idle peers', true, 'NVIDIA L4', [t.steps([[peer, 20], [hot, 40]])] + [peer + 'x60' for i in [1, 2, 3]], value=hot - (hot + 3 * peer) / 4),
          case('every GPU of the SKU as warm', false, 'NVIDIA A30', [hot + 'x60' for i in [0, 1, 2, 3]], busy=[0, 1, 2, 3]),
          case('hotter for less than ' + self['for'], false, 'NVIDIA T4', [t.steps([[peer, 40], [hot, 20]])] + [peer + 'x60' for i in [1, 2, 3]]),
          // Half the SKU goes idle and cools: the average of all its GPUs falls below the busy
          // ones by more than the threshold, the average of the busy ones does not move.
          case('half the GPUs of the SKU go idle and cool', false, 'NVIDIA L40S', [peer + 'x60', peer + 'x60', t.steps([[peer, 20], [cooled, 40]]), t.steps([[peer, 20], [cooled, 40]])], busy=[0, 1]),
        ],
      runbook: hardware(
        'The GPU has run over ' + e.num(
          $.thresholds.gpuTemperatureAboveFleetPeersCelsius,
        ) + ' °C above the fleet-wide average of the GPUs of its SKU at its load for ' + $.alerts.GPUHotterThanFleetPeers['for'] + ' (busy: GPU_UTIL at least ' + e.percent(
          $.thresholds.fleetPeersBusyUtilizationRatio,
        ) + ' %, else idle; the ' + e.num($.thresholds.fleetPeersCandidates) + ' hottest GPUs of each SKU and load in each cluster are compared: once this one is fixed, the next hot one shows).',
        'None yet: the GPU is below its throttle point. Left alone, a cooling fault reaches it and the jobs on the GPU slow down.',
        [
          q('Core temperature on every GPU of the node', fill('DCGM_FI_DEV_GPU_TEMP$(nodeSel)')),
          q("The SKU's fleet-wide average, busy and idle", 'fleet_sku_load:dcgm_gpu_temp:avg'),
          q('Power draw (load) of the GPU', fill('DCGM_FI_DEV_POWER_USAGE$(gpuSel)')),
        ],
        [
          step('Are all GPUs of the node or rack as hot?', 'Cooling of the node or rack (fans, airflow, inlet temperature): facilities.'),
          step('Is the GPU at the same load (power) as its neighbours?', 'Suspect its heatsink, fan or thermal interface: drain and service.', 'A heavier job explains part of it: keep watching.'),
        ],
        ["Check the node's fans and inlet temperature with the datacenter team.", cordon, 'If one GPU runs hot alone at equal load, drain it for hardware service.'],
      ),
    },

    GPUMemoryTemperatureHigh: hw {
      family: 'thermal',
      severity: 'warning',
      expr: gaugeAbove('DCGM_FI_DEV_MEMORY_TEMP', th.memoryTemperatureCelsius),
      panelThresholds:: { DCGM_FI_DEV_MEMORY_TEMP: th.memoryTemperatureCelsius },
      'for': '15m',
      summary: 'A GPU memory (HBM) has been running hot for ' + self['for'] + '.',
      description: 'Memory of ' + gpuText + ' is at {{ $value | printf "%.0f" }} °C (threshold ' + e.num(th.memoryTemperatureCelsius) + ' °C).',
      tests:
        local hot = th.memoryTemperatureCelsius + 5, cool = th.memoryTemperatureCelsius - 20;
        [
          t.case('hot HBM', true, [t.series('DCGM_FI_DEV_MEMORY_TEMP', t.steps([[cool, 30], [hot, 30]]))], value=hot),
          t.case('two-minute blip', false, [t.series('DCGM_FI_DEV_MEMORY_TEMP', t.steps([[cool, 40], [hot, 2], [cool, 18]]))]),
        ],
      runbook: thermal('GPUMemoryTemperatureHigh', 'memory (HBM) temperature', 'DCGM_FI_DEV_MEMORY_TEMP', $.thresholds.memoryTemperatureCelsius),
    },
  },
}
