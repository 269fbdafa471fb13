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
//
// Each level is a file of dashboards/; this file holds the builders they share: call it with
// the catalog, panels($), and read its fields.
local e = import 'expr.libsonnet';
local names = import 'names.libsonnet';
function(c) {
  local l = c.labels,
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
  // The threshold line of an alert on a panel: the value the alert declares for what the panel
  // shows (its panelThresholds:: { key: value }, in the panel's unit: a field's as the catalog
  // shows the field, a record's or a metric's as it is). An alert the catalog does not have
  // (removed, or its section off) leaves the panel without a line; one that does not declare
  // the key is an error, naming both.
  local thresholdOf(alert, key) =
    if !std.objectHas(c.alerts, alert) then []
    else
      local declared = std.get(c.alerts[alert], 'panelThresholds', {}, inc_hidden=true);
      assert std.objectHas(declared, key) : '%s declares no panel threshold for %s: add it to its panelThresholds' % [alert, key];
      alertAt(declared[key]),
  // The latency an SLO counts as good, as a panel's threshold line; none where the catalog
  // has no such SLO.
  local sloAt(slo) = if std.objectHas(c.slos, slo) then alertAt(c.slos[slo].seconds) else [],
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
  // (On Slurm, a workload is its jobs: $job.)
  local slurm = c.scheduler == 'slurm',
  local workload = if slurm then e.fill(|||
    $(cluster), $(job)=~"$job"
  |||, { cluster: cluster, job: l.job }) else e.fill(|||
    $(cluster), $(namespace), $(pod)=~"$pod"
  |||, { cluster: cluster, namespace: is(l.namespace, 'namespace'), pod: l.pod }),
  // A field's series that the workload's pods hold, the pod in the catalog's labels whether it
  // arrived there or as exported_* (a ServiceMonitor with honorLabels: false).
  local workloadSeries(field) = if slurm then e.fill('$(field){$(workload)}', { field: field, workload: workload }) else e.fill(|||
    $(exported) or $(field){$(plain)}
  |||, {
    exported: c.exporter.workload(e.fill(|||
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
  // A panel's query: a template whose $(cluster), $(node), $(gpu), $(workload), $(server) and
  // $(model) are the dashboard's selectors above, filled with pieces besides.
  local fill(template, pieces={}) = e.fill(template, { cluster: cluster, node: node, gpu: gpu, workload: workload, server: server, model: model } + pieces),

  // Variables list values from the recorded GPU-to-pod map (one series per GPU or pod's share),
  // never by scanning raw exporter series: every install has it, with kube-state-metrics or
  // without.
  local clusterVar = v('cluster', 'Cluster', e.fill('label_values($(gpuInfo), $(cluster))', { gpuInfo: names.gpuInfo, cluster: l.cluster })),
  local nodeVar = v('node', 'Node', e.fill('label_values($(gpuInfo){$(cluster)}, $(host))', { gpuInfo: names.gpuInfo, cluster: cluster, host: l.host })),

  // The alert threshold a field's L5 panel shows, in the panel's unit, as the alert that owns it
  // declares it beside its expression (panelThresholds:: { field: value }, hidden: only the
  // panels read it): an override of the catalog threshold moves alert and panel, and an alert
  // the catalog removes takes its line off the panel. A panel has one line: alerts that show
  // one field agree on it.
  local declared = [
    { field: f, alert: name, value: c.alerts[name].panelThresholds[f] }
    for name in std.objectFields(c.alerts)
    if std.objectHasAll(c.alerts[name], 'panelThresholds')
    for f in std.objectFields(c.alerts[name].panelThresholds)
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
    local u = std.get(c.units, f.unit, { grafana: 'none', scale: 1 });
    if f.kind == 'counter' && std.objectHas(u, 'rate') then u.rate else u,
  local shown(name, expr) =
    local u = display(c.fields[name]);
    if u.scale == 1 then expr else e.fill(|||
      $(query) * $(scale)
    |||, { query: expr, scale: std.toString(u.scale) }),
  local unitOf(name) = display(c.fields[name]).grafana,
  local collected(name) = c.fields[name].default || std.member(c.exporter.extraCounters, name),
  // What leaves out a field's 0 where it means "not measured" (fields' zeroIsUnmeasured): drawn
  // as no reading, not as one.
  local unmeasured(name) = if std.get(c.fields[name], 'zeroIsUnmeasured', false, inc_hidden=true) then ' != 0' else '',
  // Per MIG instance where the field is; whole GPUs otherwise.
  local perInstance(f) = f.entity == 'mig-native',
  local fieldPanel(name) =
    local f = c.fields[name];
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

  // Who cost panels charge (cost.libsonnet): a namespace, or a Slurm job; and the group that
  // is billed above it: a namespace's team, a Slurm account.
  charged:: if slurm then { level: 'job', label: l.job, word: 'job', above: 'account' } else { level: 'namespace', label: l.namespace, word: 'namespace', above: 'team' },

  // What the dashboard files read.
  q:: q,
  fill:: fill,
  panel:: panel,
  count:: count,
  thresholdOf:: thresholdOf,
  sloAt:: sloAt,
  ratio:: ratio,
  row:: row,
  v:: v,
  is:: is,
  cluster:: cluster,
  gpu:: gpu,
  workload:: workload,
  workloadSeries:: workloadSeries,
  server:: server,
  clusterVar:: clusterVar,
  nodeVar:: nodeVar,
  shown:: shown,
  unitOf:: unitOf,
  collected:: collected,
  unmeasured:: unmeasured,
  fieldPanel:: fieldPanel,
}
