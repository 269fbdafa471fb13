// L3, a node: its GPUs' raw series, throttling and errors.
local e = import '../lib/expr.libsonnet';
local names = import '../lib/names.libsonnet';
local panels = import '../lib/panels.libsonnet';
{
  local p = panels($),
  local thresholdOf = p.thresholdOf,
  local fill = p.fill,
  local q = p.q,
  local panel = p.panel,
  local ratio = p.ratio,
  local row = p.row,
  local cluster = p.cluster,
  local clusterVar = p.clusterVar,
  local nodeVar = p.nodeVar,
  local shown = p.shown,
  local unitOf = p.unitOf,
  local collected = p.collected,
  local unmeasured = p.unmeasured,
  local l = $.labels,

  dashboards+: {
    L3: {
      uid: $.deploy.grafana.uidPrefix + '-l3-node',
      title: 'GPU node',
      description: 'The GPUs of one node side by side (MIG instances where a metric is per instance).',
      vars: { cluster: l.cluster, node: l.host },
      variables: [clusterVar, nodeVar],
      links: ['L2', 'L5'],
      local dev(field, scale='') = fill('max by ($(gpu), $(uuid)) ($(field){$(node)}$(scale))', { gpu: l.gpu, uuid: l.uuid, field: field, scale: scale }),
      local byGPU = 'GPU {{' + l.gpu + '}}',
      local byInstance = 'GPU {{' + l.gpu + '}} {{' + l.migProfile + '}} {{' + l.migInstance + '}}',
      local gb200Fields = [
        'DCGM_FI_DEV_FABRIC_HEALTH_SUMMARY',
        'DCGM_FI_DEV_FABRIC_MANAGER_STATUS',
        'DCGM_FI_DEV_C2C_LINK_STATUS',
        'DCGM_FI_DEV_C2C_LINK_ERROR_INTR',
        'DCGM_FI_DEV_C2C_LINK_ERROR_REPLAY',
        'DCGM_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS',
        'DCGM_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER_FLOAT',
        'DCGM_FI_DEV_NVLINK_COUNT_SYMBOL_BER_FLOAT',
        'DCGM_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS',
        'DCGM_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_SUCCESSFUL_EVENTS',
      ],
      rows: [
        row('Utilization and memory', [
          panel('SM activity', 'timeseries', [q(fill('DCGM_FI_PROF_SM_ACTIVE{$(node)}'), byInstance)], drill='L5') + ratio,
          panel(
            'GPU utilization (whole GPUs)',
            'timeseries',
            [q(fill('DCGM_FI_DEV_GPU_UTIL{$(node)}'), byGPU)],
            unit=unitOf('DCGM_FI_DEV_GPU_UTIL'),
            min=0,
            max=if $.fields.DCGM_FI_DEV_GPU_UTIL.unit == 'percent' then 100 else 1,
            drill='L5',
          ),
          panel('Memory used', 'timeseries', [q(fill('DCGM_FI_DEV_FB_USED{$(node)}'), byInstance)], unit=unitOf('DCGM_FI_DEV_FB_USED'), drill='L5'),
        ]),
        row('Thermals, power, clocks', [
          panel('GPU temperature', 'timeseries', [q(dev('DCGM_FI_DEV_GPU_TEMP'), byGPU)], unit='celsius', thresholds=thresholdOf('GPUTemperatureHigh', 'DCGM_FI_DEV_GPU_TEMP'), width=6, drill='L5'),
          panel('Memory temperature', 'timeseries', [q(dev('DCGM_FI_DEV_MEMORY_TEMP', unmeasured('DCGM_FI_DEV_MEMORY_TEMP')), byGPU)], unit='celsius', thresholds=thresholdOf('GPUMemoryTemperatureHigh', 'DCGM_FI_DEV_MEMORY_TEMP'), width=6),
          panel('Power against the limit', 'timeseries', [q(dev('DCGM_FI_DEV_POWER_USAGE'), byGPU), q(dev('DCGM_FI_DEV_POWER_MGMT_LIMIT'), byGPU + ' limit')], unit='watt', width=6),
          panel('SM clock', 'timeseries', [q(shown('DCGM_FI_DEV_SM_CLOCK', dev('DCGM_FI_DEV_SM_CLOCK')), byGPU)], unit=unitOf('DCGM_FI_DEV_SM_CLOCK'), width=6),
          panel(
            'Throttled (share of the last ' + $.windows.throttle + ')',
            'timeseries',
            [
              q(
                fill('avg_over_time($(gpuThrottle){$(node)}[$(throttle)])', { gpuThrottle: names.gpuThrottle(r), throttle: $.windows.throttle }),
                byGPU + ' ' + r,
              )
              for r in std.objectFields($.throttleReasons)
              if std.get($.throttleReasons[r], 'perGPU', true)
            ],
            thresholds=thresholdOf('GPUThermalThrottling', names.gpuThrottle('thermal')),
            width=12,
          ) + ratio,
          panel('Clock-event bitmask', 'timeseries', [q(dev($.exporter.throttleReasonsField), byGPU)], unit='none', description='0x1 idle, 0x2 application clocks, 0x4 power cap, 0x8 HW slowdown, 0x10 sync boost, 0x20/0x40 thermal, 0x80 power brake.', width=12),
        ] + (if $.exporter.clockEventsTotalField == null then [] else [
               local events = $.exporter.clockEventsTotalField;
               panel('Clock events per minute, by reason', 'timeseries', [q(fill('sum by ($(gpu), clock_event) (rate($(events){$(node), clock_event!~"gpu_idle|clocks_setting|display_clocks"}[$__rate_interval])) * 60', { gpu: l.gpu, events: events }), byGPU + ' {{clock_event}}')], unit='cpm', description=events + ': how often each throttle reason became active, counted by the exporter between scrapes too, so a throttle shorter than a scrape shows here and not in the bitmask. Idle, application-clock and display reasons are left out: they are not throttling.', width=24),
             ])),
        row('Interconnect and errors', [
          panel('NVLink transmit', 'timeseries', [q(dev('DCGM_FI_PROF_NVLINK_TX_BYTES'), byGPU)], unit='Bps', width=6),
          panel('NVLink receive', 'timeseries', [q(dev('DCGM_FI_PROF_NVLINK_RX_BYTES'), byGPU)], unit='Bps', width=6),
          panel('PCIe transmit and receive', 'timeseries', [q(dev('DCGM_FI_PROF_PCIE_TX_BYTES'), byGPU + ' tx'), q(dev('DCGM_FI_PROF_PCIE_RX_BYTES'), byGPU + ' rx')], unit='Bps', width=12),
          panel(
            'NVLink CRC errors per minute',
            'timeseries',
            [
              q(fill('$(gpuRate){$(node)} * 60', { gpuRate: names.gpuRate('DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL', $.recording.rateWindow) }), byGPU + ' flit'),
              q(fill('$(gpuRate){$(node)} * 60', { gpuRate: names.gpuRate('DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL', $.recording.rateWindow) }), byGPU + ' data'),
            ],
            thresholds=thresholdOf('GPUNvlinkCrcErrors', 'DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL'),
            width=6,
          ),
          panel(
            'PCIe replays per minute',
            'timeseries',
            [q(fill('$(gpuRate){$(node)} * 60', { gpuRate: names.gpuRate('DCGM_FI_DEV_PCIE_REPLAY_COUNTER', $.recording.rateWindow) }), byGPU)],
            thresholds=thresholdOf('GPUPcieReplayRate', 'DCGM_FI_DEV_PCIE_REPLAY_COUNTER'),
            width=6,
          ),
          panel('ECC errors per hour', 'timeseries', [q(dev('rate(DCGM_FI_DEV_ECC_SBE_VOL_TOTAL', '[$__rate_interval]) * 3600'), byGPU + ' single-bit'), q(dev('rate(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL', '[$__rate_interval]) * 3600'), byGPU + ' double-bit')], thresholds=thresholdOf('GPUEccSingleBitRate', 'singleBitPerHour'), width=6),
          panel('Last XID', 'timeseries', [q(dev('DCGM_FI_DEV_XID_ERRORS'), byGPU)], unit='none', width=6),
        ]),
      ] + (if !std.all([std.objectHas($.fields, f) && collected(f) for f in gb200Fields]) then [] else [
             // Grace Blackwell (exporter.platform gb200): the node's GPUs in the rack's NVLink
             // fabric, their C2C links and their NVLink 5 error rates, where every field the
             // row reads is collected.
             local perMinute(field) = q(fill('$(gpuRate){$(node)} * 60', { gpuRate: names.gpuRate(field, $.recording.rateWindow) }), byGPU);
             local states(field, what) = panel(what, 'timeseries', [q(dev(field), byGPU)], unit='none', description=$.fields[field].help, width=6);
             row('NVLink fabric, C2C and NVLink 5', [
               states('DCGM_FI_DEV_FABRIC_HEALTH_SUMMARY', 'Fabric health') { thresholds: [[null, 'green'], [$.fabricStates.health.unhealthy, 'red'], [$.fabricStates.health['limited capacity'], 'orange']] },
               states('DCGM_FI_DEV_FABRIC_MANAGER_STATUS', 'Fabric registration'),
               panel('C2C links active', 'timeseries', [q(dev('DCGM_FI_DEV_C2C_LINK_STATUS'), byGPU)], unit='bool', min=0, max=1, width=6),
               panel('C2C CRC errors and replays per minute', 'timeseries', [perMinute('DCGM_FI_DEV_C2C_LINK_ERROR_INTR') { legend+: ' CRC' }, perMinute('DCGM_FI_DEV_C2C_LINK_ERROR_REPLAY') { legend+: ' replays' }], thresholds=thresholdOf('GPUC2CLinkErrors', 'DCGM_FI_DEV_C2C_LINK_ERROR_INTR'), width=6),
               panel('NVLink 5 errors after error correction, per minute', 'timeseries', [perMinute('DCGM_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS')], thresholds=thresholdOf('GPUNvlinkEffectiveErrors', 'DCGM_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS'), width=8),
               panel('NVLink 5 bit error rate', 'timeseries', [q(dev('DCGM_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER_FLOAT'), byGPU + ' effective'), q(dev('DCGM_FI_DEV_NVLINK_COUNT_SYMBOL_BER_FLOAT'), byGPU + ' symbol')], unit=unitOf('DCGM_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER_FLOAT'), description='Symbol: before forward error correction; effective: after it (each effective error costs a replay).', width=8),
               panel('NVLink 5 links declared down, per hour', 'timeseries', [q(dev('increase(DCGM_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS', '[1h])'), byGPU + ' failed'), q(dev('increase(DCGM_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_SUCCESSFUL_EVENTS', '[1h])'), byGPU + ' recovered')], description='Link recoveries: failed ones leave the link down (GPUNvlinkLinkDown).', width=8),
             ]),
           ]) + (if !$.enabled.infiniband then [] else [
                   // The node's InfiniBand and RoCE ports (node_exporter, section infiniband).
                   local ib = $.infiniband;
                   local ports = e.fill(|||
                     job="$(job)", $(cluster), $(node)=~"$node(:[0-9]+)?"
                   |||, { job: ib.job, cluster: cluster, node: ib.nodeLabel });
                   local byPort = '{{device}}/{{port}}';
                   row('InfiniBand and RoCE ports', [
                     panel('Port state', 'timeseries', [q(e.fill('node_infiniband_state_id{$(ports)}', { ports: ports }), byPort)], unit='none', description='4 active, 5 active deferred; 1 down, 2 init, 3 armed. A port never cabled stays down.', width=4),
                     panel('Link downs and error recoveries per hour', 'timeseries', [q(e.fill('increase(node_infiniband_link_downed_total{$(ports)}[1h])', { ports: ports }), byPort + ' down'), q(e.fill('increase(node_infiniband_link_error_recovery_total{$(ports)}[1h])', { ports: ports }), byPort + ' recovered')], width=5),
                     panel(
                       'Errors per minute',
                       'timeseries',
                       [q(e.fill('60 * rate($(errors){$(ports)}[$__rate_interval])', { errors: ib.errors[k], ports: ports }), byPort + ' ' + k) for k in std.objectFields(ib.errors)],
                       thresholds=thresholdOf('GPUInfiniBandPortErrors', ib.errors[std.objectFields(ib.errors)[0]]),
                       width=5,
                     ),
                     panel('Data received and transmitted', 'timeseries', [q(e.fill('rate(node_infiniband_port_data_received_bytes_total{$(ports)}[$__rate_interval])', { ports: ports }), byPort + ' rx'), q(e.fill('rate(node_infiniband_port_data_transmitted_bytes_total{$(ports)}[$__rate_interval])', { ports: ports }), byPort + ' tx')], unit='Bps', width=5),
                     panel(
                       'Transmit time lost waiting for credits',
                       'timeseries',
                       [q(ib.transmitWaitShare(ports, '$__rate_interval'), byPort)],
                       unit='percentunit',
                       min=0,
                       max=1,
                       thresholds=thresholdOf('GPUInfiniBandCongested', 'transmitWaitShare'),
                       description='PortXmitWait ticks × infiniband.transmitWaitBytes, over what the port lost and sent: congestion.',
                       width=5,
                     ),
                   ]),
                 ]),
    },
  },
}
