// Builders of per-GPU alerts and their runbooks, shared by the family files that define them
// (hardware/, fabric, recovery). Call it with the catalog and read its fields:
//   local gpu = import '../lib/gpu.libsonnet';
//   { alerts+: { local g = gpu($), GPUX: g.owner { ... } } }
local e = import 'expr.libsonnet';
local names = import 'names.libsonnet';
local rb = import 'runbook.libsonnet';
local t = import 'test.libsonnet';
function(c) {
  local l = c.labels,
  local w = c.windows,
  // The GPU of an alert, for its description.
  gpuText:: 'GPU {{ $labels.' + l.gpu + ' }} ({{ $labels.' + l.uuid + ' }}) on {{ $labels.' + l.host + ' }}',
  // A per-GPU expression with the identity of the pods on the GPU attached, from the recorded
  // GPU-to-pod map; keep names a label of the expression the result keeps.
  attributed(expr, keep=''):: e.fill(|||
    ($(query)) * on ($(gpuJoin)) group_right ($(keep)) $(gpuInfo)
  |||, { query: expr, gpuJoin: std.join(', ', c.identity.gpuJoin), keep: keep, gpuInfo: names.gpuInfo }),
  // How much a counter field grew on a GPU over a window, read from the per-GPU counter so
  // that an increment on a series that just changed identity still counts.
  increasedOver(field, window):: e.fill(|||
    increase($(counter)[$(window)])
  |||, { counter: names.gpuCounter(field), window: window }),
  // A counter field's per-minute rate on a GPU above a threshold, from the per-GPU rate the
  // recording rules keep anyway.
  perMinute(field, threshold):: e.fill(|||
    $(rate) * 60 > $(threshold)
  |||, { rate: names.gpuRate(field, c.recording.rateWindow), threshold: std.toString(threshold) }),
  // Scenarios of an event counter whose series change identity at the moment of the event:
  // the job dies with the error (the increment lands on the series without its pod), and the
  // exporter restarts as a new target. kept names an alert with keep_firing_for: its first
  // firing, on the GPU while the pod still held it, keeps firing beside the one without the pod.
  churnCases(field, what, count, kept=null):: [
    t.case(what + ' kills the job: the increment lands on the series without the pod', true, [
      t.series(field, '0x54'),
      t.series(field, '_x56 ' + count + 'x4', pod=false),
    ], health='65x54', extraHealth='_x56 65x4', value=count, without=c.identity.workload, alsoFires=if kept == null then [] else [t.also(kept, count)]),
    t.case(what + ' as the exporter restarts as a new target', true, [
      t.series(field, '0x55'),
      t.series(field, '_x56 ' + count + 'x4', { instance: '10.250.0.1:9400' }),
    ], value=count),
  ],

  // Every hardware alert goes to infra; families group alerts for rule groups and inhibition
  // (a page inhibits the tickets of its family on the same GPU).
  owner:: { team: c.teams.infra },

  // Runbook parts: selectors of the alert's own GPU and node, and the steps of a node repair.
  local gpuSel = rb.sel([l.cluster, l.host, l.uuid]),
  local nodeSel = rb.sel([l.cluster, l.host]),
  gpuSel:: gpuSel,
  nodeSel:: nodeSel,
  // A first-look query: a template whose $(gpuSel) and $(nodeSel) select the alert's GPU and
  // node, filled with pieces besides.
  fill(template, pieces={}):: e.fill(template, { gpuSel: gpuSel, nodeSel: nodeSel } + pieces),
  cordon:: c.nodes.cordon(l.host),
  drain:: c.nodes.drain(l.host),
  reset:: rb.reset(l.gpu, c.nodes.back(l.host)),
  rma:: rb.rma(l.gpu, c.nodes.held),
  // A hardware alert's runbook, escalated to infra, its dashboards the node's and the GPU's.
  hardware(meaning, impact, queries, diagnosis, mitigation):: {
    meaning: meaning,
    impact: impact,
    queries: queries,
    diagnosis: diagnosis,
    mitigation: mitigation,
    escalation: rb.escalation.infra,
    dashboards: ['L3', 'L5'],
  },

  // An event alert stays firing for windows.incident after its event leaves the event window:
  // one case inside that time, one (where the hour has room for it) after it. event(minute)
  // is the scenario's series with the event at that minute.
  local eventMinutes = e.seconds(w.event) / 60,
  local incidentMinutes = e.seconds(w.incident) / 60,
  incidentCases(event, value, labels={}, alsoFires=[]):: [
    t.case(
      'the event ended ' + std.toString(incidentMinutes / 2) + ' minutes ago: the alert keeps firing (keep_firing_for)',
      true,
      event(std.max(1, 60 - eventMinutes - incidentMinutes / 2)),
      value=value,
      labels=labels,
      alsoFires=alsoFires,
    ),
  ] + (if eventMinutes + incidentMinutes + 5 > 59 then [] else [
         t.case('the event ended longer ago than windows.incident: the incident is over', false, event(60 - eventMinutes - incidentMinutes - 5), alsoFires=alsoFires),
       ]),
  eventAlert:: { keepFiringFor: w.incident },
}
