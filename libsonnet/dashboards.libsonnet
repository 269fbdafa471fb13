// Grafana dashboards L1 (fleet) to L5 (one GPU), generated with the Grafana foundation SDK.
//
// A dashboard: uid, title, description, vars (template variable -> the alert label that fills
// it, for links from runbooks and from other dashboards), variables (name, label, query),
// links (levels to drill down to), rows of panels, annotations. A panel: title, type
// (timeseries, stat, table, heatmap, bargauge), unit (Grafana's), min, max, thresholds
// ([value, color], the first value null), queries ([expr, legend]), width (of 24), drill
// (a level its series link to, with the variables taken from the series' labels), stack.
//
// L1 and L2 read recording rules only, so they stay cheap at fleet size; L3-L5 read the raw
// series of one node, workload or GPU. Thresholds are the alerts' thresholds.
local e = import 'lib/expr.libsonnet';
local names = import 'lib/names.libsonnet';
{
  local l = $.labels,
  local th = $.thresholds,
  local inf = $.inference,
  local q(expr, legend='') = { expr: expr, legend: legend },
  local panel(title, type, queries, unit='short', description='', min=null, max=null, thresholds=[], width=8, drill=null, drillVars=null, stack=false) = {
    title: title,
    type: type,
    queries: queries,
    unit: unit,
    description: description,
    [if min != null then 'min']: min,
    [if max != null then 'max']: max,
    thresholds: thresholds,
    width: width,
    [if drill != null then 'drill']: drill,
    [if drillVars != null then 'drillVars']: drillVars,
    stack: stack,
  },
  // How many series a query has: 0 where it has none, not "No data".
  local count(expr) = e.fill(|||
    count($(expr)) or vector(0)
  |||, { expr: expr }),
  // Green below the alert threshold, red above it.
  local alertAt(v) = [[null, 'green'], [v, 'red']],
  local ratio = { unit: 'percentunit', min: 0, max: 1 },
  local row(title, panels) = { title: title, panels: panels },
  local v(name, label, query, multi=false) = { name: name, label: label, query: query, multi: multi },

  // A label matched to the dashboard variable $var.
  local is(label, var) = e.fill(|||
    $(label)="$$(var)"
  |||, { label: label, var: var }),
  local cluster = is(l.cluster, 'cluster'),
  local node = e.fill(|||
    $(cluster), $(node)
  |||, { cluster: cluster, node: is(l.host, 'node') }),
  local gpu = e.fill(|||
    $(node), $(gpu)
  |||, { node: node, gpu: is(l.uuid, 'gpu') }),
  local workload = e.fill(|||
    $(cluster), $(namespace), $(pod)=~"$pod"
  |||, { cluster: cluster, namespace: is(l.namespace, 'namespace'), pod: l.pod }),
  // A field's series that the workload's pods hold, the pod in the catalog's labels whether it
  // arrived there or as exported_* (a ServiceMonitor with honorLabels: false).
  local workloadSeries(field) = e.fill(|||
    $(exported) or $(field){$(plain)}
  |||, {
    exported: $.exporter.workload(e.fill(|||
      $(field){$(cluster), $(namespace), $(pod)=~"$pod"}
    |||, { field: field, cluster: cluster, namespace: is(l.exportedNamespace, 'namespace'), pod: l.exportedPod })),
    field: field,
    plain: e.fill(|||
      $(workload), $(exported)=""
    |||, { workload: workload, exported: l.exportedPod }),
  }),
  local server = e.fill(|||
    $(cluster), namespace="$namespace", pod=~"$pod"
  |||, { cluster: cluster }),
  // The per-model records of the namespace.
  local model = e.fill(|||
    $(cluster), namespace="$namespace"
  |||, { cluster: cluster }),

  // Variables list values from the recorded GPU-to-pod map (one series per GPU or pod's share),
  // never by scanning raw exporter series: every install has it, with kube-state-metrics or
  // without.
  local clusterVar = v('cluster', 'Cluster', 'label_values(' + names.gpuInfo + ', ' + l.cluster + ')'),
  local nodeVar = v('node', 'Node', 'label_values(' + names.gpuInfo + '{' + cluster + '}, ' + l.host + ')'),

  // The alert threshold a field's L5 panel shows, in the panel's unit, as the alert that owns it
  // declares it beside its expression (panelThresholds:: { field: value }, hidden: only the
  // panels read it): an override of the catalog threshold moves alert and panel, and an alert
  // the catalog removes takes its line off the panel. A panel has one line: alerts that show
  // one field agree on it.
  local declared = [
    { field: f, alert: name, value: $.alerts[name].panelThresholds[f] }
    for name in std.objectFields($.alerts)
    if std.objectHasAll($.alerts[name], 'panelThresholds')
    for f in std.objectFields($.alerts[name].panelThresholds)
  ],
  local fieldThresholds = {
    [f]:
      local by = [d for d in declared if d.field == f];
      assert std.all([d.value == by[0].value for d in by]) : "alerts show the L5 panel of %s at different thresholds (%s): declare it in one alert's panelThresholds" % [f, std.join(', ', [d.alert + ' at ' + d.value for d in by])];
      by[0].value
    for f in std.set([d.field for d in declared])
  },
  // A field's value in its Grafana unit, and that unit: a counter's per-second rate. (A unit
  // missing from units, or a counter's unit without a rate, is reported by validation.)
  local display(f) =
    local u = std.get($.units, f.unit, { grafana: 'none', scale: 1 });
    if f.kind == 'counter' && std.objectHas(u, 'rate') then u.rate else u,
  local shown(name, expr) =
    local u = display($.fields[name]);
    if u.scale == 1 then expr else e.fill(|||
      $(query) * $(scale)
    |||, { query: expr, scale: std.toString(u.scale) }),
  local unitOf(name) = display($.fields[name]).grafana,
  local collected(name) = $.fields[name].default || std.member($.exporter.extraCounters, name),
  // What leaves out a field's 0 where it means "not measured" (fields' zeroIsUnmeasured): drawn
  // as no reading, not as one.
  local unmeasured(name) = if std.get($.fields[name], 'zeroIsUnmeasured', false, inc_hidden=true) then ' != 0' else '',
  // Per MIG instance where the field is; whole GPUs otherwise.
  local perInstance(f) = f.entity == 'mig-native',
  local fieldPanel(name) =
    local f = $.fields[name];
    local u = display(f);
    local sel = e.fill(|||
      $(field){$(gpu)}$(unmeasured)
    |||, { field: name, gpu: gpu, unmeasured: unmeasured(name) });
    local value = if f.kind == 'counter' then e.fill(|||
      rate($(selector)[$__rate_interval])
    |||, { selector: sel }) else sel;
    local scaled = shown(name, value);
    // Device-level values repeat on every MIG instance: show them once.
    local split = std.get(f, 'seriesLabels', []);
    local expr = if perInstance(f) then scaled else e.fill(|||
      max by ($(labels)) ($(scaled))
    |||, { labels: std.join(', ', [l.gpu, l.uuid] + split), scaled: scaled });
    local legend = (if perInstance(f) then 'GPU {{' + l.gpu + '}} {{' + l.migProfile + '}} {{' + l.migInstance + '}}' else 'GPU {{' + l.gpu + '}}')
                   + std.join('', [' ' + x + ' {{' + x + '}}' for x in split]);
    panel(std.rstripChars(f.help, '.'),
          'timeseries',
          [q(expr, legend)],
          unit=u.grafana,
          description=name + (if f.kind == 'counter' then ', as a rate' else '') + '.',
          thresholds=if std.objectHas(fieldThresholds, name) then alertAt(fieldThresholds[name]) else [],
          width=6),

  dashboards: {
    L1: {
      uid: $.deploy.grafana.uidPrefix + '-l1-fleet',
      title: 'GPU fleet',
      description: 'Every cluster at once, from recording rules only.',
      vars: {},
      variables: [],
      links: ['L2'],
      rows: [
        row('Capacity', [
          panel('GPUs allocatable', 'stat', [q('fleet:kube_gpu_allocatable:sum')], width=4),
          panel('GPUs requested by pods', 'stat', [q('fleet:kube_gpu_requested:sum')], width=4),
          panel('GPUs reporting', 'stat', [q('fleet:dcgm_gpus_reporting:count')], width=4),
          panel('GPUs healthy', 'stat', [q('sum(cluster:gpu_healthy:count)')], width=4),
          panel('Allocation', 'stat', [q('fleet:kube_gpu_allocation:ratio')], thresholds=alertAt(th.clusterAllocationRatio), width=4) + ratio,
          panel('Open alerts by tier', 'stat', [q('count by (severity) (ALERTS{alertstate="firing", family!=""})', '{{severity}}')], width=4),
        ]),
        row('Utilization', [
          panel('SM activity by cluster', 'timeseries', [q('cluster:dcgm_sm_active:avg', '{{' + l.cluster + '}}'), q('fleet:dcgm_sm_active:avg', 'fleet')], description='Share of cycles with work on the SMs: the honest utilization.', drill='L2') + ratio,
          panel('Engine activity and GPU_UTIL', 'timeseries', [q('fleet:dcgm_gr_engine_active:avg', 'graphics engine active'), q(if $.fields.DCGM_FI_DEV_GPU_UTIL.unit == 'percent' then 'fleet:dcgm_gpu_util:avg / 100' else 'fleet:dcgm_gpu_util:avg', 'GPU_UTIL (any kernel running)')], description='GPU_UTIL counts time with any kernel running; a GPU can show 100 % while its SMs are mostly idle.') + ratio,
          panel('Nodes by SM activity', 'heatmap', [q('fleet:dcgm_sm_active_nodes:histogram', '{{le}}')], description='How many nodes run at each SM activity (cumulative buckets).'),
        ]),
        row('Cost', [
          panel('Top idle allocated GPU cost by namespace', 'table', [q('topk(10, namespace:gpu_idle_cost_dollars_per_hour:sum)')], unit='currencyUSD', description='Dollars per hour of allocated GPU time not used.', drill='L2'),
          panel('GPU cost and idle cost by cluster', 'timeseries', [q('cluster:gpu_cost_dollars_per_hour:sum', '{{' + l.cluster + '}} total'), q('cluster:gpu_idle_cost_dollars_per_hour:sum', '{{' + l.cluster + '}} idle')], unit='currencyUSD', stack=false),
          panel('SLO error budget left (worst series of each SLO)', 'bargauge', [q('min by (slo) (slo:error_budget:remaining)', '{{slo}}')], thresholds=[[null, 'red'], [0, 'orange'], [0.5, 'green']], description='1 is untouched, 0 spent, below 0 overspent.', min=-1, max=1, unit='percentunit'),
        ]),
      ],
    },

    L2: {
      uid: $.deploy.grafana.uidPrefix + '-l2-cluster',
      title: 'GPU cluster',
      description: 'One cluster: allocation, fragmentation, health, SLOs; recording rules only.',
      vars: { cluster: l.cluster },
      variables: [clusterVar],
      links: ['L1', 'L3', 'L4'],
      local freePerNode = 'node:kube_gpu_allocatable:sum{' + cluster + '} - (node:kube_gpu_requested:sum{' + cluster + '} or node:kube_gpu_allocatable:sum{' + cluster + '} * 0)',
      rows: [
        row('Allocation', [
          panel('Allocation', 'stat', [q('cluster:kube_gpu_allocation:ratio{' + cluster + '}')], thresholds=alertAt(th.clusterAllocationRatio), width=4) + ratio,
          panel('GPUs allocatable / requested / healthy', 'stat', [q('cluster:kube_gpu_allocatable:sum{' + cluster + '}', 'allocatable'), q('cluster:kube_gpu_requested:sum{' + cluster + '}', 'requested'), q('cluster:gpu_healthy:count{' + cluster + '}', 'healthy')], width=8),
          panel('GPUs requested by namespace', 'bargauge', [q('sort_desc(namespace:kube_gpu_requested:sum{' + cluster + '})', '{{namespace}}')], width=6, drill='L4', drillVars={ namespace: 'namespace' }),
          panel('SM activity of allocated GPUs by namespace', 'bargauge', [q('sort(namespace:dcgm_sm_active:avg{' + cluster + '})', '{{' + l.namespace + '}}')], width=6, drill='L4') + ratio,
          panel('Idle cost by namespace', 'table', [q('sort_desc(namespace:gpu_idle_cost_dollars_per_hour:sum{' + cluster + '})')], unit='currencyUSD', width=8, drill='L4'),
          panel('Cost by team', 'table', [q('sort_desc(team:gpu_cost_dollars_per_hour:sum{' + cluster + '})')], unit='currencyUSD', width=8),
          // Each node against its own allocatable GPUs: a node of 4 free GPUs among nodes of 8 is
          // free, not fragmented.
          panel('Fragmentation: nodes with some but not all GPUs free', 'stat', [q(count('((' + freePerNode + ') > 0) < node:kube_gpu_allocatable:sum{' + cluster + '}'))], description='Free GPUs spread over nodes cannot take a job that needs a whole node.', width=4),
          // kube-state-metrics names the node `node`; the exporter's host label is the same name.
          panel('Free GPUs by node', 'table', [q('(' + freePerNode + ') > 0')], width=4, drill='L3', drillVars={ node: l.node }),
        ]),
        row('Cohorts', [
          panel('SM activity by ' + c, 'bargauge', [q('sort(cluster_' + c + ':dcgm_sm_active:avg{' + cluster + '})', '{{' + $.cohorts[c] + '}}')], width=6) + ratio
          for c in std.objectFields($.cohorts)
        ] + [
          panel('Hardware error events per GPU by ' + c + ' (last ' + $.windows.cohort + ')', 'table', [q('cluster_' + c + ':dcgm_' + s + '_events:sum' + $.windows.cohort + '{' + cluster + '} / cluster_' + c + ':dcgm_gpus:count{' + cluster + '}', s) for s in $.cohortSignals], description='A cohort far above the others (GPUCohort alerts at ' + e.num(th.cohortErrorRatio) + '×) points at what it shares: a driver, an SKU.', width=6)
          for c in std.objectFields($.cohorts)
        ]),
        row('Scheduling', [
          panel('GPU pods waiting for a node, by namespace', 'timeseries', [q('namespace:kube_gpu_pods_unschedulable:count{' + cluster + '}', '{{namespace}}')], description='Pods that request GPUs and that the scheduler could not place; GPUPodUnschedulable tickets those waiting over ' + $.windows.unschedulable + '.', width=12, stack=true),
          panel('Longest scheduling wait, by namespace', 'bargauge', [q('sort_desc(namespace:kube_gpu_pod_scheduling_wait_seconds:max{' + cluster + '})', '{{namespace}}')], unit='s', thresholds=alertAt(e.seconds($.windows.unschedulable)), width=12),
        ] + (if !$.kubernetes.dra then [] else [
               panel('DRA claims waiting for a device, by namespace', 'timeseries', [q('namespace:kube_resourceclaims_unallocated:count{' + cluster + '}', '{{namespace}}')], description='ResourceClaims no device has been allocated to: on DRA nodes, the pods that wait for GPUs. GPUResourceClaimUnallocated tickets a claim waiting over ' + $.windows.unschedulable + '.', width=12, stack=true),
               panel('Nodes failing to prepare DRA devices', 'stat', [q(count('ALERTS{alertname="GPUDRAPrepareFailing", alertstate="firing", ' + cluster + '}'))], description="Nodes whose kubelet failed to prepare a pod's claimed devices in the last " + $.windows.unschedulable + ' (GPUDRAPrepareFailing): their pods stay in ContainerCreating.', width=12),
             ])),
        row('Health', [
          panel('GPUs throttled by reason', 'timeseries', [q('cluster:dcgm_clock_throttle_' + r + ':sum{' + cluster + '}', r) for r in std.objectFields($.throttleReasons)], stack=true),
          panel('ECC error rate', 'timeseries', [q('cluster:dcgm_ecc_sbe_vol_total:rate5m{' + cluster + '} * 3600', 'single-bit'), q('cluster:dcgm_ecc_dbe_vol_total:rate5m{' + cluster + '} * 3600', 'double-bit')], unit='short', description='Errors per hour.'),
          panel('XID events', 'timeseries', [q('count by (xid) (group by (' + std.join(', ', $.identity.gpuJoin + ['xid']) + ') (' + names.xidEvents($.windows.event) + '{' + cluster + '}))', 'XID {{xid}}')], description='GPUs with a new XID in the last ' + $.windows.event + ', by code.'),
          panel('Hottest GPU', 'timeseries', [q('cluster:dcgm_gpu_temp:max{' + cluster + '}', 'max')], unit='celsius', thresholds=alertAt(th.gpuTemperatureCelsius)),
          panel('GPUs reporting against capacity', 'timeseries', [q('cluster:dcgm_gpus_reporting:count{' + cluster + '}', 'reporting'), q('cluster:kube_gpu_capacity:sum{' + cluster + '}', 'capacity')]),
          panel('Cordoned nodes', 'stat', [q(count('ALERTS{alertname="GPUNodeCordoned", alertstate="firing", ' + cluster + '}'))], width=4),
        ]),
        row('SLOs', [
          panel('Burn rate', 'timeseries', [q('slo:error_budget:burn_rate{' + cluster + '}', '{{slo}} {{namespace}} {{' + inf.modelLabel + '}}')], description='1 spends the budget exactly over the period; the fast-burn page starts at ' + $.sloDefaults.tiers[0].factor + '.', thresholds=[[null, 'green'], [1, 'orange'], [$.sloDefaults.tiers[0].factor, 'red']], width=12),
          panel('Error budget left', 'bargauge', [q('slo:error_budget:remaining{' + cluster + '}', '{{slo}} {{namespace}} {{' + inf.modelLabel + '}}')], thresholds=[[null, 'red'], [0, 'orange'], [0.5, 'green']], min=-1, max=1, unit='percentunit', width=12),
        ]),
      ],
    },

    L3: {
      uid: $.deploy.grafana.uidPrefix + '-l3-node',
      title: 'GPU node',
      description: 'The GPUs of one node side by side (MIG instances where a metric is per instance).',
      vars: { cluster: l.cluster, node: l.host },
      variables: [clusterVar, nodeVar],
      links: ['L2', 'L5'],
      local dev(field, scale='') = 'max by (' + l.gpu + ', ' + l.uuid + ') (' + field + '{' + node + '}' + scale + ')',
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
          panel('SM activity', 'timeseries', [q('DCGM_FI_PROF_SM_ACTIVE{' + node + '}', byInstance)], drill='L5') + ratio,
          panel('GPU utilization (whole GPUs)', 'timeseries', [q('DCGM_FI_DEV_GPU_UTIL{' + node + '}', byGPU)], unit=unitOf('DCGM_FI_DEV_GPU_UTIL'), min=0, max=if $.fields.DCGM_FI_DEV_GPU_UTIL.unit == 'percent' then 100 else 1, drill='L5'),
          panel('Memory used', 'timeseries', [q('DCGM_FI_DEV_FB_USED{' + node + '}', byInstance)], unit=unitOf('DCGM_FI_DEV_FB_USED'), drill='L5'),
        ]),
        row('Thermals, power, clocks', [
          panel('GPU temperature', 'timeseries', [q(dev('DCGM_FI_DEV_GPU_TEMP'), byGPU)], unit='celsius', thresholds=alertAt(th.gpuTemperatureCelsius), width=6, drill='L5'),
          panel('Memory temperature', 'timeseries', [q(dev('DCGM_FI_DEV_MEMORY_TEMP', unmeasured('DCGM_FI_DEV_MEMORY_TEMP')), byGPU)], unit='celsius', thresholds=alertAt(th.memoryTemperatureCelsius), width=6),
          panel('Power against the limit', 'timeseries', [q(dev('DCGM_FI_DEV_POWER_USAGE'), byGPU), q(dev('DCGM_FI_DEV_POWER_MGMT_LIMIT'), byGPU + ' limit')], unit='watt', width=6),
          panel('SM clock', 'timeseries', [q(shown('DCGM_FI_DEV_SM_CLOCK', dev('DCGM_FI_DEV_SM_CLOCK')), byGPU)], unit=unitOf('DCGM_FI_DEV_SM_CLOCK'), width=6),
          panel('Throttled (share of the last ' + $.windows.throttle + ')', 'timeseries', [q('avg_over_time(' + names.gpuThrottle(r) + '{' + node + '}[' + $.windows.throttle + '])', byGPU + ' ' + r) for r in std.objectFields($.throttleReasons) if std.get($.throttleReasons[r], 'perGPU', true)], thresholds=alertAt(th.throttleRatio), width=12) + ratio,
          panel('Clock-event bitmask', 'timeseries', [q(dev($.exporter.throttleReasonsField), byGPU)], unit='none', description='0x1 idle, 0x2 application clocks, 0x4 power cap, 0x8 HW slowdown, 0x10 sync boost, 0x20/0x40 thermal, 0x80 power brake.', width=12),
        ] + (if $.exporter.clockEventsTotalField == null then [] else [
               local events = $.exporter.clockEventsTotalField;
               panel('Clock events per minute, by reason', 'timeseries', [q('sum by (' + l.gpu + ', clock_event) (rate(' + events + '{' + node + ', clock_event!~"gpu_idle|clocks_setting|display_clocks"}[$__rate_interval])) * 60', byGPU + ' {{clock_event}}')], unit='cpm', description=events + ': how often each throttle reason became active, counted by the exporter between scrapes too, so a throttle shorter than a scrape shows here and not in the bitmask. Idle, application-clock and display reasons are left out: they are not throttling.', width=24),
             ])),
        row('Interconnect and errors', [
          panel('NVLink transmit', 'timeseries', [q(dev('DCGM_FI_PROF_NVLINK_TX_BYTES'), byGPU)], unit='Bps', width=6),
          panel('NVLink receive', 'timeseries', [q(dev('DCGM_FI_PROF_NVLINK_RX_BYTES'), byGPU)], unit='Bps', width=6),
          panel('PCIe transmit and receive', 'timeseries', [q(dev('DCGM_FI_PROF_PCIE_TX_BYTES'), byGPU + ' tx'), q(dev('DCGM_FI_PROF_PCIE_RX_BYTES'), byGPU + ' rx')], unit='Bps', width=12),
          panel('NVLink CRC errors per minute', 'timeseries', [q(names.gpuRate('DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL', $.recording.rateWindow) + '{' + node + '} * 60', byGPU + ' flit'), q(names.gpuRate('DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL', $.recording.rateWindow) + '{' + node + '} * 60', byGPU + ' data')], thresholds=alertAt(th.nvlinkCrcErrorsPerMinute), width=6),
          panel('PCIe replays per minute', 'timeseries', [q(names.gpuRate('DCGM_FI_DEV_PCIE_REPLAY_COUNTER', $.recording.rateWindow) + '{' + node + '} * 60', byGPU)], thresholds=alertAt(th.pcieReplaysPerMinute), width=6),
          panel('ECC errors per hour', 'timeseries', [q(dev('rate(DCGM_FI_DEV_ECC_SBE_VOL_TOTAL', '[$__rate_interval]) * 3600'), byGPU + ' single-bit'), q(dev('rate(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL', '[$__rate_interval]) * 3600'), byGPU + ' double-bit')], thresholds=alertAt(th.eccSingleBitPerHour), width=6),
          panel('Last XID', 'timeseries', [q(dev('DCGM_FI_DEV_XID_ERRORS'), byGPU)], unit='none', width=6),
        ]),
      ] + (if !std.all([std.objectHas($.fields, f) && collected(f) for f in gb200Fields]) then [] else [
             // Grace Blackwell (exporter.platform gb200): the node's GPUs in the rack's NVLink
             // fabric, their C2C links and their NVLink 5 error rates, where every field the
             // row reads is collected.
             local perMinute(field) = q(names.gpuRate(field, $.recording.rateWindow) + '{' + node + '} * 60', byGPU);
             local states(field, what) = panel(what, 'timeseries', [q(dev(field), byGPU)], unit='none', description=$.fields[field].help, width=6);
             row('NVLink fabric, C2C and NVLink 5', [
               states('DCGM_FI_DEV_FABRIC_HEALTH_SUMMARY', 'Fabric health') { thresholds: [[null, 'green'], [$.fabricStates.health.unhealthy, 'red'], [$.fabricStates.health['limited capacity'], 'orange']] },
               states('DCGM_FI_DEV_FABRIC_MANAGER_STATUS', 'Fabric registration'),
               panel('C2C links active', 'timeseries', [q(dev('DCGM_FI_DEV_C2C_LINK_STATUS'), byGPU)], unit='bool', min=0, max=1, width=6),
               panel('C2C CRC errors and replays per minute', 'timeseries', [perMinute('DCGM_FI_DEV_C2C_LINK_ERROR_INTR') { legend+: ' CRC' }, perMinute('DCGM_FI_DEV_C2C_LINK_ERROR_REPLAY') { legend+: ' replays' }], thresholds=alertAt(th.c2cErrorsPerMinute), width=6),
               panel('NVLink 5 errors after error correction, per minute', 'timeseries', [perMinute('DCGM_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS')], thresholds=alertAt(th.nvlinkEffectiveErrorsPerMinute), width=8),
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
                     panel('Port state', 'timeseries', [q('node_infiniband_state_id{' + ports + '}', byPort)], unit='none', description='4 active, 5 active deferred; 1 down, 2 init, 3 armed. A port never cabled stays down.', width=4),
                     panel('Link downs and error recoveries per hour', 'timeseries', [q('increase(node_infiniband_link_downed_total{' + ports + '}[1h])', byPort + ' down'), q('increase(node_infiniband_link_error_recovery_total{' + ports + '}[1h])', byPort + ' recovered')], width=5),
                     panel('Errors per minute', 'timeseries', [q('60 * rate(' + ib.errors[k] + '{' + ports + '}[$__rate_interval])', byPort + ' ' + k) for k in std.objectFields(ib.errors)], thresholds=alertAt(th.infinibandErrorsPerMinute), width=5),
                     panel('Data received and transmitted', 'timeseries', [q('rate(node_infiniband_port_data_received_bytes_total{' + ports + '}[$__rate_interval])', byPort + ' rx'), q('rate(node_infiniband_port_data_transmitted_bytes_total{' + ports + '}[$__rate_interval])', byPort + ' tx')], unit='Bps', width=5),
                     panel('Transmit time lost waiting for credits', 'timeseries', [q(ib.transmitWaitShare(ports, '$__rate_interval'), byPort)], unit='percentunit', min=0, max=1, thresholds=alertAt(th.infinibandTransmitWaitShare), description='PortXmitWait ticks × infiniband.transmitWaitBytes, over what the port lost and sent: congestion.', width=5),
                   ]),
                 ]),
    },

    L4: {
      uid: $.deploy.grafana.uidPrefix + '-l4-workload',
      title: 'GPU workload',
      // The inference row goes with the inference section: so does its mention.
      description: 'The GPUs of one workload (pods of a namespace)' + (if $.enabled.inference then ', and its inference metrics when it serves with vLLM' else '') + '.',
      vars: { cluster: l.cluster, namespace: l.namespace, pod: l.pod },
      // The namespaces a GPU's pod is in, and those a served engine's servers run in: a server
      // whose GPU the exporter attributes to no pod (claimed through DRA) is one. (Engines'
      // series name the namespace namespace: read where the catalog names it so too.)
      local servingNamespaces = if !$.enabled.inference || l.namespace != 'namespace' then [] else [inf.profiles[x].running[0].name for x in inf.having('running')],
      variables: [
        clusterVar,
        v('namespace', 'Namespace', 'label_values({__name__=~"' + std.join('|', [names.gpuInfo] + servingNamespaces) + '", ' + cluster + '}, ' + l.namespace + ')'),
        v('pod', 'Pod', 'label_values(' + names.gpuInfo + '{' + cluster + ', ' + is(l.namespace, 'namespace') + '}, ' + l.pod + ')', multi=true),
      ],
      links: ['L2', 'L5'],
      local byPod = '{{' + l.pod + '}} GPU {{' + l.gpu + '}} {{' + l.migInstance + '}}',
      // A field of every served engine that shows it (inference.gauges), on the panel's server.
      local all(field, f='%s') = std.join(' or ', inf.gauges(field, f, matchers=server)),
      // A latency quantity's quantiles, one set per served engine that has it: engines'
      // ladders differ, and one histogram summed from two ladders reads no quantile right.
      local quantiles(quantity) =
        local engines = inf.having(quantity);
        [
          q($.histograms.quantile(p, inf.readOf(engine, quantity), [], '$__rate_interval', server), 'p' + e.percent(p) + (if std.length(engines) > 1 then ' ' + inf.profiles[engine].title else ''))
          for engine in engines
          for p in [0.5, 0.95, 0.99]
        ],
      rows: [
        row('GPUs', [
          panel('SM activity', 'timeseries', [q(workloadSeries('DCGM_FI_PROF_SM_ACTIVE'), byPod)], drill='L5') + ratio,
          panel('Tensor pipe activity', 'timeseries', [q(workloadSeries('DCGM_FI_PROF_PIPE_TENSOR_ACTIVE'), byPod)]) + ratio,
          panel('DRAM activity', 'timeseries', [q(workloadSeries('DCGM_FI_PROF_DRAM_ACTIVE'), byPod)]) + ratio,
          panel('Memory used', 'timeseries', [q(workloadSeries('DCGM_FI_DEV_FB_USED'), byPod)], unit=unitOf('DCGM_FI_DEV_FB_USED')),
          panel("Stragglers: each GPU against its workload's median", 'timeseries', [
            q(names.trainingActivity($.windows.straggler) + '{' + workload + '}', byPod),
            q('quantile by (owner_name) (0.5, ' + names.trainingActivity($.windows.straggler) + '{' + cluster + ', ' + is(l.namespace, 'namespace') + '})', 'median of {{owner_name}}'),
          ], description='A GPU far below the median (under ' + th.stragglerRatio + ' of it) while the median stays busy holds the whole job back.', width=16) + ratio,
        ]),
        // A latency panel goes where no engine served has its histogram (quantiles of none).
        row('Inference (' + std.join(', ', [inf.profiles[x].title for x in inf.engines]) + ')', std.filter(function(p) p.queries != [], [
          panel('Time to first token', 'timeseries', quantiles('timeToFirstToken'), unit='s', thresholds=alertAt(th.ttftSeconds)),
          panel('End-to-end latency', 'timeseries', quantiles('requestLatency'), unit='s'),
          local requests(outcome, engines, legend) = q(inf.requestRate([outcome], engines, [], '$__rate_interval', server), legend);
          panel('Requests per second', 'timeseries', (if inf.answering == [] then [] else [requests('served', inf.answering, 'admitted'), requests('failed', inf.answering, 'failed')])
                                                     + (if inf.shedding == [] then [] else [requests('rejected', inf.shedding, 'refused')]), unit='reqps', description='Admitted, failed on the server side' + (if inf.shedding == [] then '.' else ', and refused at admission on purpose (' + std.join(', ', [inf.profiles[x].title for x in inf.shedding]) + ').')),
          panel('Requests waiting and running', 'timeseries', [q('sum(' + std.join(' or ', ['max by (' + std.join(', ', inf.identity) + ') (' + g + ')' for g in inf.gauges('waiting', matchers=server)]) + ')', 'waiting') for _ in [1] if inf.having('waiting') != []] + [q('sum(' + std.join(' or ', inf.gauges('running', inf.onceAcrossRanks, matchers=server)) + ')', 'running') for _ in [1] if inf.having('running') != []], thresholds=alertAt(th.inferenceQueueDepth), description="Waiting: each engine's queue" + (if $.enabled.vllm then " (vLLM's capacity queue where it splits it)" else '') + '; running: the requests being decoded.'),
          panel('KV-cache usage', 'timeseries', [q(all('kvCache'), '{{pod}}') for _ in [1] if inf.having('kvCache') != []], thresholds=alertAt(th.kvCacheUsageRatio)) + ratio,
          panel('Preemptions', 'timeseries', [q('sum(' + all('preemptions', function(r) if r.type == 'counter' then 'rate(%s[$__rate_interval])' else '%s') + ')', 'preemptions') for _ in [1] if inf.having('preemptions') != []], unit=if std.all([r.type == 'counter' for x in inf.having('preemptions') for r in inf.profiles[x].preemptions]) then 'ops' else 'short', description='Per second where the engine counts them; the requests paused where it shows a level.'),
          panel('Time per output token', 'timeseries', quantiles('interTokenLatency'), unit='s', thresholds=alertAt(th.tpotSeconds)),
          panel('Where a request spends its time (mean)', 'timeseries', [q('model:inference_request_' + phase + '_time_seconds:mean_rate5m{' + model + '}', phase + ' {{' + inf.modelLabel + '}}') for phase in ['queue', 'prefill', 'decode'] if inf.having(inf.phases[phase]) != []], unit='s', description='Waiting in the queue, prefill (the prompt, up to the first token), decode (the output tokens).', stack=true),
          panel('Throughput and goodput', 'timeseries', [q('model:inference_generation_tokens:rate5m{' + model + '}', 'tokens/s {{' + inf.modelLabel + '}}') for _ in [1] if inf.having('generated') != []] + [q('model:inference_goodput_tokens:rate5m{' + model + '}', 'goodput {{' + inf.modelLabel + '}}') for _ in [1] if inf.goodput != []], description='Goodput: tokens/s of requests that met the TTFT (' + e.num(th.ttftSeconds) + ' s) and TPOT (' + e.num(th.tpotSeconds) + ' s) objectives.'),
          panel('Tokens per running request', 'timeseries', [q('model:inference_generation_tokens_per_running_request:ratio_rate5m{' + model + '}', '{{' + inf.modelLabel + '}}') for _ in [1] if inf.decoding != []], description='Decode speed per request in flight: GPUInferenceThroughputDrop compares it with the ' + $.windows.throughputBaseline + ' before.'),
          panel('Canary decision', 'stat', [q('model:inference_canary:decision{' + model + '}', '{{' + inf.modelLabel + '}}') for _ in [1] if $.enabled.release && inf.gated], description='0 promote, 1 hold, 2 roll back: the worse of the p99 TTFT ratio and the error-ratio increase against the thresholds.', thresholds=[[null, 'green'], [1, 'orange'], [2, 'red']], min=0, max=2, width=8),
        ])),
      ] + (if !$.enabled.nccl then [] else [
             // NCCL Inspector's windows of the workload's ranks (section nccl): each rank is a
             // pod (the inspector's host name, copied into the pod label) and its GPU. The
             // inspector's series carry no namespace: the pods of the workload's GPUs pick them.
             local nc = $.nccl;
             local ranks(metric) = e.fill(|||
               label_replace($(metric){job="$(job)", $(cluster), $(rank)=~"$pod"}, "$(pod)", "$1", "$(rank)", "(.*)") and on ($(clusterLabel), $(pod)) group by ($(clusterLabel), $(pod)) (gpu_pod:dcgm_gpu_info:group{$(workload)})
             |||, { metric: metric, job: nc.job, cluster: cluster, rank: nc.podLabel, clusterLabel: l.cluster, pod: l.pod, workload: workload });
             local byRank = '{{' + nc.podLabel + '}} {{gpu}} {{collective}} {{message_size}}';
             local byPeer = '{{' + nc.podLabel + '}} {{gpu}} {{p2p_operation}} {{message_size}}';
             row('Collectives (NCCL Inspector)', [
               panel('Execution time per rank', 'timeseries', [q(ranks('nccl_collective_exec_time_microseconds'), byRank)], unit='µs', description='The mean of each dump window, per rank, collective and message size, timed on the GPU: a rank that reaches a collective early waits there for the others, so the rank far below its peers is the one that arrives last, the straggler they wait for.', width=12),
               panel('Bus bandwidth per rank', 'timeseries', [q(ranks('nccl_bus_bandwidth_gbs'), byRank)], unit='none', description='GB/s, the geometric mean of each dump window: ranks that wait for a late one read less. When even the best rank of a communicator is far below what the same collective and size reach elsewhere, the collective is starved.', width=12),
               panel('Point-to-point time per rank', 'timeseries', [q(ranks('nccl_p2p_exec_time_microseconds'), byPeer)], unit='µs', description="Sends and receives between pipeline stages (NCCL_INSPECTOR_ENABLE_P2P=1), per rank and message size, timed on the GPU: a transfer's time includes waiting for the stage at its other end to reach it.", width=12),
               panel('Point-to-point bus bandwidth per rank', 'timeseries', [q(ranks('nccl_p2p_bus_bandwidth_gbs'), byPeer)], unit='none', description='GB/s of sends and receives between pipeline stages, the geometric mean of each dump window.', width=12),
             ]),
           ]),
    },

    L5: {
      uid: $.deploy.grafana.uidPrefix + '-l5-gpu',
      title: 'Single GPU',
      description: 'One GPU: every field the exporter collects over time, error events as annotations.',
      vars: { cluster: l.cluster, node: l.host, gpu: l.uuid },
      variables: [clusterVar, nodeVar, v('gpu', 'GPU (UUID)', 'label_values(' + names.gpuInfo + '{' + node + '}, ' + l.uuid + ')')],
      links: ['L3'],
      annotations: [
        { name: 'XID events', expr: e.fill(|||
          $(events){$(gpu)}
        |||, { events: names.xidEvents($.windows.event), gpu: gpu }), color: 'red', title: 'New XID' },
        { name: 'Double-bit ECC errors', expr: e.fill(|||
          increase($(counter){$(gpu)}[$(window)]) > 0
        |||, { counter: names.gpuCounter('DCGM_FI_DEV_ECC_DBE_VOL_TOTAL'), gpu: gpu, window: $.recording.rateWindow }), color: 'purple', title: 'Double-bit ECC' },
        { name: 'Single-bit ECC errors', expr: e.fill(|||
          increase($(counter){$(gpu)}[$(window)]) > 0
        |||, { counter: names.gpuCounter('DCGM_FI_DEV_ECC_SBE_VOL_TOTAL'), gpu: gpu, window: $.recording.rateWindow }), color: 'yellow', title: 'Single-bit ECC' },
        { name: 'Alerts', expr: e.fill(|||
          ALERTS{alertstate="firing", $(gpu)}
        |||, { gpu: is(l.uuid, 'gpu') }), color: 'orange', title: '{{alertname}}' },
      ],
      local byFamily = std.set([$.fields[n].family for n in std.objectFields($.fields) if collected(n)]),
      rows: [
        row(family, [fieldPanel(n) for n in std.objectFields($.fields) if collected(n) && $.fields[n].family == family && $.fields[n].entity != 'nvlink'])
        for family in byFamily
      ],
    },
  },

  // Node SM activity as cumulative buckets, for the fleet heatmap (a dozen series at any size):
  // counted per cluster (a shard's record on a sharded fleet), added up for the fleet.
  local smBuckets = ['0.1', '0.2', '0.3', '0.4', '0.5', '0.6', '0.7', '0.8', '0.9', '1'],
  local smNodes(record, labels) =
    local t = import 'lib/test.libsonnet';
    local nodeAt(host, value) = t.series('DCGM_FI_PROF_SM_ACTIVE', value + 'x60', t.gpu(l, host, 0));
    t.recordCase('three nodes at 15 %, 45 % and 95 %', [nodeAt('a', 0.15), nodeAt('b', 0.45), nodeAt('c', 0.95)], [
      t.sample(labels { le: b }, if b == '0.1' then 0 else if std.parseJson(b) < 0.45 then 1 else if std.parseJson(b) < 0.95 then 2 else 3)
      for b in smBuckets
    ] + [t.sample(labels { le: '+Inf' }, 3)], record),
  records+: {
    'cluster:dcgm_sm_active_nodes:histogram': {
      local nodes = 'node:dcgm_sm_active:avg',
      // An empty bucket of a cluster reads 0 (its node count times 0), not nothing.
      local bucket(counted, le) = e.fill(|||
        label_replace(count $(by) ($(counted)) or 0 * count $(by) ($(nodes)), "le", "$(le)", "", "")
      |||, { by: e.by([l.cluster]), counted: counted, nodes: nodes, le: le }),
      local atMost(le) = e.fill(|||
        $(nodes) <= $(le)
      |||, { nodes: nodes, le: le }),
      family: 'utilization',
      expr: std.join(' or ', [bucket(atMost(b), b) for b in smBuckets] + [bucket(nodes, '+Inf')]),
      tests: [smNodes('cluster:dcgm_sm_active_nodes:histogram', { [l.cluster]: 'prod' })],
    },
    'fleet:dcgm_sm_active_nodes:histogram': {
      family: 'utilization',
      comments: [
        "The cluster histogram holds node counts, never NaN: pint follows node:dcgm_sm_active:avg's division through count().",
        'pint disable promql/nan',
      ],
      expr: 'sum by (le) (cluster:dcgm_sm_active_nodes:histogram)',
      tests: [smNodes('fleet:dcgm_sm_active_nodes:histogram', {})],
    },
  },
}
