// InfiniBand and RoCE port counters stuck at their maximum (section infiniband): what they
// count can no longer be read, and the alerts on them go blind for the port.
local e = import '../lib/expr.libsonnet';
local t = import '../lib/test.libsonnet';
{
  infiniband+:: {
    // The most each port counter holds: they saturate, not wrap (PortCounters: errors 16 bits,
    // link integrity 4, recovery and downed 8), and the kernel reads PortXmitWait as 32 bits
    // even from the extended counters (drivers/infiniband/core/sysfs.c): stuck there, its rate
    // reads 0.
    counterMax: {
      node_infiniband_port_transmit_wait_total: 4294967295,
      node_infiniband_symbol_error_total: 65535,
      node_infiniband_port_errors_received_total: 65535,
      node_infiniband_local_link_integrity_errors_total: 15,
      node_infiniband_link_error_recovery_total: 255,
      node_infiniband_link_downed_total: 255,
    },
  },

  local l = $.labels,
  local ib = $.infiniband,
  local port = [l.cluster, l.host, 'device', 'port', 'counter'],
  local saturated = 'port:node_infiniband_counter:saturated',

  records+: {
    // Each port counter at its maximum, valued at it, labelled with the counter's short name.
    [saturated]: {
      section: 'infiniband',
      family: 'network',
      comments: [
        "A port counter is compared with its maximum, not rated: InfiniBand's port counters are the port's own (counted since the port was reset), not the exporter's.",
        'gpuobs-lint disable promql/counter',
      ],
      local short(metric) = std.strReplace(std.strReplace(metric, 'node_infiniband_', ''), '_total', ''),
      local atMax(m) = e.fill('label_replace($(metric){job="$(job)"} >= $(max), "counter", "$(short)", "", "")', {
        metric: m,
        job: ib.job,
        max: std.toString(ib.counterMax[m]),
        short: short(m),
      }),
      expr: e.fill('max by ($(port)) ($(saturated))', { port: std.join(', ', port), saturated: ib.onHost(std.join(' or ', std.map(atMax, std.objectFields(ib.counterMax)))) }),
    },
  },

  alerts+: {
    // A port counter stuck at its maximum: one ticket per port and counter.
    GPUInfiniBandCounterSaturated: {
      section: 'infiniband',
      family: 'network',
      team: $.teams.infra,
      severity: 'warning',
      identity: port,
      expr: e.fill('$(saturated) > 0', { saturated: saturated }),
      'for': '10m',
      summary: 'An InfiniBand/RoCE port counter is stuck at its maximum: what it counts can no longer be read.',
      description: 'Counter {{ $labels.counter }} of port {{ $labels.device }}/{{ $labels.port }} on node {{ $labels.' + l.host + ' }} (cluster {{ $labels.' + l.cluster + ' }}) sits at its maximum ({{ $value }}): its rate reads 0, so the port looks idle of what it counts. Reset the port counters.',
      local counter(metric, values) = [t.series(metric, values, { job: ib.job, [ib.nodeLabel]: t.scenarioHost, device: 'mlx5_2', port: '1' })],
      local at(name) = { [l.host]: t.scenarioHost, device: 'mlx5_2', port: '1', counter: name },
      local wait = 'node_infiniband_port_transmit_wait_total',
      tests: [
        t.case('transmit wait saturated at 2^32 - 1', true, [], extra=counter(wait, std.toString(ib.counterMax[wait]) + 'x60'), target=at('port_transmit_wait'), value=ib.counterMax[wait]),
        t.case('symbol errors saturated at 65535', true, [], extra=counter('node_infiniband_symbol_error_total', '65000+50x20 65535x40'), target=at('symbol_error'), value=65535),
        t.case('transmit wait below its maximum', false, [], extra=counter(wait, '4000000000+1000000x60')),
        t.case('reset after saturating', false, [], extra=counter(wait, std.toString(ib.counterMax[wait]) + 'x50 0+1000x10')),
      ],
      runbook: {
        meaning: 'The port counter has sat at its maximum for ' + $.alerts.GPUInfiniBandCounterSaturated['for'] + ' (infiniband.counterMax: InfiniBand port counters stop there rather than wrap; the kernel reads PortXmitWait as 32 bits even where the port has 64-bit extended counters).',
        impact: 'Its rate reads 0: congestion (GPUInfiniBandCongested) or errors (GPUInfiniBandPortErrors, link flaps) on the port go unseen, and panels show it idle.',
        queries: [{ title: 'The port counters', expr: e.fill('{__name__=~"node_infiniband_.+_total", $(port)}', { port: ib.portMatchers }) }],
        diagnosis: [{ check: 'Does `perfquery -x <lid> <port>` show the extended counter still counting?', yes: 'Only the 32-bit read saturated: reset it, and read the extended counters where you can.', no: 'The counter itself is full: reset it.' }],
        mitigation: [
          'Reset the port counters (`perfquery -R <lid> <port>` on a host of the fabric, or `perfquery -R -a` for every port of the HCA); the alert resolves once the counter reads below its maximum.',
          'Where a counter fills again within days, reset the counters on a schedule (the subnet manager or a cron job), and tell the network team the error rate that fills it.',
        ],
        escalation: 'Infrastructure on-call; the network team.',
        dashboards: ['L3'],
      },
    },
  },
}
