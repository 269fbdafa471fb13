// Hardware health: thresholds, XID classes and the tiered hardware alerts.
//
// Alert fields: family, severity (critical pages, warning tickets, info), team, expr, for,
// summary (plain sentence), description (Prometheus template), identity (labels the alert keeps),
// tests: promtool scenarios, each on its own synthetic GPU (see gpuobs.libsonnet), runbook: its
// page (lib/runbook.libsonnet says what it holds), and panelThresholds: the alert's threshold
// on the L5 panel of each field it reads (dashboards.libsonnet).
local e = import 'lib/expr.libsonnet';
local names = import 'lib/names.libsonnet';
local rb = import 'lib/runbook.libsonnet';
local t = import 'lib/test.libsonnet';
{
  thresholds: {
    eccSingleBitPerHour: 100,
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
    nvlinkCrcErrorsPerMinute: 1,
    nvlinkReplayErrorsPerMinute: 5,
    pcieReplaysPerMinute: 10,
    // A GPU busier than this (engine activity) whose PCIe link runs below its generation has a
    // link that did not train up: below it, a lower generation is the link saving power.
    pcieBusyActivity: 0.5,
    // Share of the window in which the throttle reason was set.
    throttleRatio: 0.5,
    // More than this share of a cluster's exporter targets down at once (and more than one):
    // the scrape is broken for the cluster, not each node.
    exportersDownRatio: 0.5,
    // Power throttling costs performance when SM clocks sit below this share of their maximum.
    throttledClockRatio: 0.8,
  },

  windows: {
    // How long an XID or ECC event keeps its alert firing...
    event: '10m',
    // ...and how much longer the alert stays firing after that (keep_firing_for), so that the
    // same fault repeating within an incident (a GPU that errors again after its reset) stays
    // one page instead of resolving and paging again; the alert resolves this long after the
    // last event window ends.
    incident: '30m',
    eccRate: '1h',
    throttle: '15m',
    // How far back a GPU that stopped reporting is remembered.
    missing: '1h',
    // How long a gap in a GPU's data (a Prometheus restart, a scrape outage) the XID alerts
    // look past to tell an old XID from a new one; XIDs held across a longer gap are announced
    // again when the data resumes.
    gap: '30m',
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

  // Every XID class (xids.libsonnet) has its alert here; a class without one would leave its
  // codes alerting nowhere.
  assert std.setDiff(std.objectFields($.xid), ['application', 'fatal', 'fellOffBus', 'hardware']) == [] : 'xid: classes are application, fatal, fellOffBus and hardware; ' + std.join(', ', std.setDiff(std.objectFields($.xid), ['application', 'fatal', 'fellOffBus', 'hardware'])) + ' has no alert',

  // Recording rules the alerts read. XID events are detected once for the whole fleet, and the
  // XID alerts filter the (tiny) result by code.
  local xidRecord = names.xidEvents($.windows.event),
  local xidTotalRecord = 'gpu:dcgm_exp_xid_errors_total:max',
  local exporterHost = 'instance:dcgm_exporter_host:group',
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
    // Which host each exporter target serves, for alerts on the target (up has no host label).
    // A target that goes down keeps its host for as long as it stays down (the record reads
    // its own last value), so DCGMExporterDown keeps one identity for the whole outage.
    [exporterHost]: {
      family: 'exporter',
      comments: ['Reads its own last value while the target is down: a mapping outlives the series it came from.'],
      // The host is the catalog's host label, else the first spelling of dcgm-exporter's own
      // that the series carry (exporter.hostLabels), where the catalog reads the exporter's
      // own: an exporter of another version than the catalog's still has its node
      // (DCGMExporterLabelMismatch tickets the difference). A catalog whose host label is a
      // relabelling of its own reads that alone.
      local others = if std.member($.exporter.hostLabels, $.labels.host) then [x for x in $.exporter.hostLabels if x != $.labels.host] else [],
      local spellings = [$.labels.host] + others,
      local byTarget = [$.labels.cluster, 'instance'],
      local hosts = if others == [] then e.fill('group by ($(target), $(host)) ($(health))', { target: std.join(', ', byTarget), host: $.labels.host, health: $.exporter.health() }) else e.fill(|||
        group by ($(target), $(host)) (label_replace(label_join(group by ($(target), $(spellings)) ($(health)), "$(joined)", ";", $(quoted)), "$(host)", "$1", "$(joined)", ";*([^;]+).*"))
      |||, { target: std.join(', ', byTarget), host: $.labels.host, spellings: std.join(', ', spellings), joined: 'host_labels', quoted: std.join(', ', [std.escapeStringJson(x) for x in spellings]), health: $.exporter.health() }),
      expr: e.fill(|||
        $(hosts) or ($(known) and on ($(target)) (up{job="$(job)"} == 0))
      |||, { hosts: hosts, target: std.join(', ', byTarget), known: exporterHost, job: $.exporter.job }),
      local gpu = t.gpu($.labels, 'node-a', 0) { job: $.exporter.job },
      local gpuB(other) = t.gpu($.labels, 'node-b', 0) { job: $.exporter.job, instance: 'node-b:9400', [$.labels.host]: '', [other]: 'node-b' },
      local up(g, values) = t.series('up', values, { [$.labels.cluster]: 'prod', job: $.exporter.job, instance: g.instance }),
      tests: [
        t.recordCase('the exporter down for 50 minutes keeps its host',
                     [t.series($.exporter.healthField, '65x10 _x50', gpu), up(gpu, '1x10 0x50')],
                     [t.sample({ [$.labels.cluster]: 'prod', instance: gpu.instance, [$.labels.host]: 'node-a' }, 1)],
                     exporterHost),
      ] + [
        t.recordCase('an exporter that names its host ' + other,
                     [t.series($.exporter.healthField, '65x60', gpuB(other)), up(gpuB(other), '1x60')],
                     [t.sample({ [$.labels.cluster]: 'prod', instance: gpuB(other).instance, [$.labels.host]: 'node-b' }, 1)],
                     exporterHost)
        for other in others[:1]
      ],
    },
    // New XID events of the event window, one series per GPU (pod) and code, the code in the
    // xid label and the value how many events were seen.
    //
    // The gauge holds the last XID forever, so an event is a value that differs from the
    // GPU's last value at least an event window old, in the same series or in a new one
    // (err_code label changed); an old value never counts again, and a repeat of the same XID
    // is invisible. The last value is looked for up to windows.gap further back, so a
    // Prometheus outage or a scrape failure (whose stale marker ends the series) does not make
    // every held XID new again when the data resumes. dcgm-exporter's per-code counts see
    // repeats, and where they are collected they come first, the gauge covering what they do
    // not: the cumulative counter (xidTotalField, 4.8.3 and later, read from the per-GPU
    // record below) or the count within the exporter's window (xidCountField,
    // --xid-count-window-size).
    [xidRecord]: {
      local w = $.windows.event,
      local id = std.join(', ', $.identity.alert),
      local series = std.join(', ', $.identity.gpu + ['err_code']),
      local before = e.fill(|||
        max by ($(series)) (last_over_time(DCGM_FI_DEV_XID_ERRORS[$(gap)] offset $(window)))
      |||, { series: series, gap: $.windows.gap, window: w }),
      local fromGauge = e.fill(|||
        count_values by ($(id)) ("xid", max by ($(id)) ($(new)))
      |||, { id: id, new: $.exporter.workload(e.fill(|||
        DCGM_FI_DEV_XID_ERRORS > 0 unless on ($(series)) (DCGM_FI_DEV_XID_ERRORS == on ($(series)) group_left () $(before))
      |||, { series: series, before: before })) }),
      local fromCount = e.fill(|||
        max by ($(id), xid) ($(counted)) > 0
      |||, { id: id, counted: $.exporter.workload(e.fill('max_over_time($(field){xid=~"[1-9][0-9]*"}[$(window)])', { field: $.exporter.xidCountField, window: w })) }),
      // The cumulative count's last value at least an event window old.
      local totalBefore = e.fill(|||
        last_over_time($(total)[$(gap)] offset $(window))
      |||, { total: xidTotalRecord, gap: $.windows.gap, window: w }),
      // Per GPU and code, the events since the count's last value at least an event window
      // old (looked for up to windows.gap further back): its growth; its value where it went
      // down (the exporter restarted, and counts again from 0); its whole value where it had
      // none (a code's series appears with its first XID). The pods holding the GPU now come
      // from the counter's own series.
      local fromTotal = e.fill(|||
        (
            ($(total) - $(before) > 0)
          or
            ($(total) < $(before))
          or
            ($(total) unless $(before))
        )
        * on ($(gpuJoin), xid) group_right ()
          group by ($(id), xid) ($(held))
      |||, {
        total: xidTotalRecord,
        before: totalBefore,
        gpuJoin: std.join(', ', $.identity.gpuJoin),
        id: id,
        held: $.exporter.workload(e.fill('$(field){xid=~"[1-9][0-9]*"}', { field: $.exporter.xidTotalField })),
      }),
      family: 'xid',
      expr: std.join(' or ', [
        c.expr
        for c in [
          { field: $.exporter.xidTotalField, expr: fromTotal },
          { field: $.exporter.xidCountField, expr: fromCount },
        ]
        if c.field != null
      ] + [fromGauge]),
    },
  } + (if $.exporter.xidTotalField == null then {} else {
         // The cumulative XID count of each GPU and code, whatever the pod or target labels of
         // its series: a pod exiting or the exporter restarting as a new target changes them.
         [xidTotalRecord]: {
           family: 'xid',
           expr: e.fill(|||
             max by ($(gpu), xid) ($(field))
           |||, { gpu: std.join(', ', $.identity.gpu), field: $.exporter.xidTotalField }),
         },
       }),

  // Builders of per-GPU alerts, shared by the catalog files that define them.
  gpuAlerts:: {
    local l = $.labels,
    // The GPU of an alert, for its description.
    gpuText: 'GPU {{ $labels.' + l.gpu + ' }} ({{ $labels.' + l.uuid + ' }}) on {{ $labels.' + l.host + ' }}',
    // A per-GPU expression with the identity of the pods on the GPU attached, from the recorded
    // GPU-to-pod map; keep names a label of the expression the result keeps.
    attributed(expr, keep=''):: e.fill(|||
      ($(query)) * on ($(gpuJoin)) group_right ($(keep)) $(gpuInfo)
    |||, { query: expr, gpuJoin: std.join(', ', $.identity.gpuJoin), keep: keep, gpuInfo: names.gpuInfo }),
    // How much a counter field grew on a GPU over a window, read from the per-GPU counter so
    // that an increment on a series that just changed identity still counts.
    increasedOver(field, window):: e.fill(|||
      increase($(counter)[$(window)])
    |||, { counter: names.gpuCounter(field), window: window }),
    // A counter field's per-minute rate on a GPU above a threshold, from the per-GPU rate the
    // recording rules keep anyway.
    perMinute(field, threshold):: e.fill(|||
      $(rate) * 60 > $(threshold)
    |||, { rate: names.gpuRate(field, $.recording.rateWindow), threshold: std.toString(threshold) }),
    // Scenarios of an event counter whose series change identity at the moment of the event:
    // the job dies with the error (the increment lands on the series without its pod), and the
    // exporter restarts as a new target. kept names an alert with keep_firing_for: its first
    // firing, on the GPU while the pod still held it, keeps firing beside the one without the pod.
    churnCases(field, what, count, kept=null):: [
      t.case(what + ' kills the job: the increment lands on the series without the pod', true, [
        t.series(field, '0x54'),
        t.series(field, '_x56 ' + count + 'x4', pod=false),
      ], health='65x54', extraHealth='_x56 65x4', value=count, without=[l.namespace, l.pod], alsoFires=if kept == null then [] else [t.also(kept, count)]),
      t.case(what + ' as the exporter restarts as a new target', true, [
        t.series(field, '0x55'),
        t.series(field, '_x56 ' + count + 'x4', { instance: '10.250.0.1:9400' }),
      ], value=count),
    ],
  },

  alerts: {
    local l = $.labels,
    local id = std.join(', ', $.identity.alert),
    local gpuText = $.gpuAlerts.gpuText,
    local th = $.thresholds,
    local w = $.windows,
    // Families group alerts for rule groups and inhibition (a page inhibits the tickets of its
    // family on the same GPU); every hardware alert goes to infra.
    local hw = { team: $.teams.infra },
    local attributed = $.gpuAlerts.attributed,
    local increasedOver = $.gpuAlerts.increasedOver,
    local churnCases = $.gpuAlerts.churnCases,

    // Runbook parts; the steps alerts of several families share come from lib/runbook.libsonnet.
    local q = rb.query,
    local step = rb.step,
    local is = rb.is,
    local gpuSel = rb.sel([l.cluster, l.host, l.uuid]),
    local nodeSel = rb.sel([l.cluster, l.host]),
    local cordon = rb.cordon(l.host),
    local drain = rb.drain(l.host),
    local reset = rb.reset(l.gpu),
    local rma = rb.rma(l.gpu),
    local hardware(meaning, impact, queries, diagnosis, mitigation) = {
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
    local incidentCases(event, value, labels={}, alsoFires=[]) = [
      t.case('the event ended ' + std.toString(incidentMinutes / 2) + ' minutes ago: the alert keeps firing (keep_firing_for)', true, event(std.max(1, 60 - eventMinutes - incidentMinutes / 2)), value=value, labels=labels, alsoFires=alsoFires),
    ] + (if eventMinutes + incidentMinutes + 5 > 59 then [] else [
           t.case('the event ended longer ago than windows.incident: the incident is over', false, event(60 - eventMinutes - incidentMinutes - 5), alsoFires=alsoFires),
         ]),
    local eventAlert = { keepFiringFor: w.incident },

    local xid(code) = { xid: std.toString(code) },
    // The exporter's cumulative per-code count beside the gauge, where it is collected: the
    // series it sends with every XID.
    local total = $.exporter.xidTotalField,
    local counted(code, values, labels={}, pod=true) = if total == null then [] else [t.series(total, values, xid(code) + labels, pod=pod)],
    local newXid(code) = function(minute) [t.series('DCGM_FI_DEV_XID_ERRORS', '_x' + minute + ' ' + code + 'x' + (60 - minute), { err_code: std.toString(code) })] + counted(code, '_x' + minute + ' 1x' + (60 - minute)),
    local held(code, pod=true) = t.series('DCGM_FI_DEV_XID_ERRORS', code + 'x60', { err_code: std.toString(code) }, pod=pod),
    local xidCases(alert, code, other, otherAlert, kept) = [
      t.case('new XID', true, newXid(code)(55), value=1, labels=xid(code)),
      t.case('value changes in place (exporter without err_code)', true, [t.series('DCGM_FI_DEV_XID_ERRORS', '0x57 ' + code + 'x3')], value=1, pod=false, labels=xid(code)),
      t.case('old XID still held', false, [held(code)] + counted(code, '1x60')),
      // At evaluation, the value of ten minutes before falls in a gap: a Prometheus outage
      // (no samples at all), or a scrape failure whose stale marker ends the series there.
      t.case('old XID held across a 10-minute Prometheus outage', false, [t.series('DCGM_FI_DEV_XID_ERRORS', code + 'x40 _x10 ' + code + 'x9', { err_code: std.toString(code) })] + counted(code, '1x40 _x10 1x9')),
      t.case('old XID held across a 3-minute scrape failure', false, [t.series('DCGM_FI_DEV_XID_ERRORS', code + 'x48 stale _x2 ' + code + 'x8', { err_code: std.toString(code) })] + counted(code, '1x48 stale _x2 1x8')),
      t.case('new XID in place of an old one across a Prometheus outage', true, [t.series('DCGM_FI_DEV_XID_ERRORS', other + 'x40 _x14 ' + code + 'x5')], value=1, pod=false, labels=xid(code)),
      t.case('other XID class', false, [t.series('DCGM_FI_DEV_XID_ERRORS', '_x55 ' + other + 'x5', { err_code: std.toString(other) })], alsoFires=[{ alert: otherAlert, value: 1, labels: xid(other) }]),
    ] + (if $.exporter.xidCountField == null then [] else [
           // The gauge already held the code: only the per-code count sees the repeat.
           t.case('the same XID again, seen by the per-code count', true, [held(code), t.series($.exporter.xidCountField, '_x55 3x5', xid(code))], value=3, labels=xid(code)),
           t.case('per-code count back to zero', false, [held(code), t.series($.exporter.xidCountField, '_x5 1x5 0x50', xid(code))]),
         ]) + (if total == null then [] else [
                 // The gauge already holds the code in each: only the cumulative count sees
                 // the XID.
                 t.case('the same XID twice more, seen by the cumulative count', true, [held(code)] + counted(code, '1x55 3x5'), value=2, labels=xid(code)),
                 t.case('the first XID of its code since the exporter started: its series appears', true, [held(code)] + counted(code, '_x55 1x5'), value=1, labels=xid(code)),
                 t.case('the exporter restarted as a new target: the count starts again', true, [held(code)] + counted(code, '3x29') + counted(code, '_x55 1x5', { instance: '10.250.0.1:9400' }), value=1, labels=xid(code)),
                 t.case('the cumulative count held across a 10-minute Prometheus outage', false, [held(code)] + counted(code, '2x40 _x10 2x9')),
                 // The XID kills the job: the count moves to the series without the pod (which
                 // carries the exporter's own pod, its scrape target's). The alert of the
                 // XID's first minute, on the pod, is kept firing beside it (keep_firing_for)
                 // where the alert keeps firing.
                 local exporterPod = $.exporter.targetPod(t.scenarioHost);
                 t.case('the job dies with the XID: the count moves to the series without the pod', true, [held(code, pod=false)] + counted(code, '_x55 1 stale') + counted(code, '_x56 1x4', pod=false), value=1, labels=xid(code) + { [k]: exporterPod[k] for k in [l.namespace, l.pod] }, alsoFires=if kept then [{ alert: alert, value: 1, labels: xid(code) }] else []),
               ]),
    local xidRunbook(class, meaning, impact) = {
      meaning: meaning,
      impact: impact,
      // Each code as NVIDIA's XID catalog describes it, with the action it gives (xids.libsonnet).
      local cite(code) =
        local x = std.get($.xidCatalog, std.toString(code), null);
        if x == null then 'XID ' + code + ": not in xidCatalog; look it up in NVIDIA's XID catalog."
        else 'XID ' + code + ', ' + x.name + (if std.objectHas(x, 'architectures') then ' (' + std.join(', ', x.architectures) + ')' else '')
             + ": NVIDIA's action " + x.action + ', ' + $.xidActions[x.action].todo + '.' + (if std.objectHas(x, 'note') then ' ' + x.note else ''),
      notes: [cite(c) for c in $.xid[class]] + [
        "An XID is new when it differs from the GPU's last XID at least " + $.windows.event + ' old, looked for up to ' + $.windows.gap + ' further back (windows.gap): a Prometheus restart or a scrape outage shorter than that does not announce held XIDs again. After a longer gap, an XID the GPU held before it is announced once more: check its L5 history before acting.',
      ],
      queries: [
        q('The last XID of this GPU', 'DCGM_FI_DEV_XID_ERRORS' + gpuSel),
      ] + (if $.exporter.xidCountField == null then [] else [
             q('Events of each XID code on this GPU (a repeat shows here, not in the last XID)', $.exporter.xidCountField + gpuSel),
           ]) + (if $.exporter.xidTotalField == null then [] else [
                   q('XIDs of each code on this GPU since its exporter started (a repeat shows here, not in the last XID)', $.exporter.xidTotalField + gpuSel),
                 ]) + [
        q('XIDs on every GPU of the node', 'DCGM_FI_DEV_XID_ERRORS' + nodeSel + ' > 0'),
        q('Other XIDs in the fleet in the last hour (a fleet-wide pattern points at a driver)', 'count by (err_code) (changes(DCGM_FI_DEV_XID_ERRORS[1h]) > 0)'),
      ],
      diagnosis: [
        step('Does `nvidia-smi -q -i $' + l.gpu + '` on the node still see the GPU?', '', 'The GPU is gone from the bus: drain and reboot the node.'),
        step('Did other GPUs of the node report XIDs at the same time?', 'Suspect the node (PSU, baseboard, driver): drain the whole node.'),
        step('Did the same XID fire across many nodes at once?', 'Suspect a driver or firmware change: stop the rollout and escalate.'),
        step('Has this GPU had the same XID before (L5 dashboard)?', 'Repeat offender: drain, reset and open an RMA.', 'Reset the GPU when its job is done and watch it.'),
      ],
      mitigation: [cordon, drain, reset, rma],
      escalation: rb.escalation.infra,
      dashboards: ['L3', 'L5'],
    },

    local xidAlert(alert, severity, codes, summary, what, other, otherAlert) = hw {
      family: 'xid',
      severity: severity,
      // One code matches exactly, several by a regular expression.
      expr: e.fill(|||
        $(events){xid$(match)"$(codes)"} > 0
      |||, { events: xidRecord, match: if std.length(codes) == 1 then '=' else '=~', codes: std.join('|', [std.toString(c) for c in codes]) }),
      identity: $.identity.alert + ['xid'],
      summary: summary,
      description: gpuText + ' reported XID {{ $labels.xid }} (' + what + ') in the last ' + w.event + ': {{ $value | printf "%.0f" }} event(s).',
      tests: xidCases(alert, codes[0], other, otherAlert, kept=severity != 'info')
             + (if severity == 'info' then [] else incidentCases(newXid(codes[0]), 1, xid(codes[0]))),
    } + (if severity == 'info' then {} else eventAlert),

    GPUFellOffBus: xidAlert('GPUFellOffBus', 'critical', $.xid.fellOffBus, 'A GPU has fallen off the bus.', 'GPU fell off the bus', 48, 'GPUXidFatal') {
      runbook: xidRunbook('fellOffBus', 'The GPU reported XID 79: the host lost it on the PCIe bus.', 'Every job on the GPU (often on the node) is dead; the GPU stops reporting until the node reboots.'),
    },
    GPUXidFatal: xidAlert('GPUXidFatal', 'critical', $.xid.fatal, 'A GPU reported a fatal XID error.', 'fatal', 13, 'GPUXidApplication') {
      runbook: xidRunbook('fatal', 'The GPU reported an XID that leaves it unusable until a reset (uncorrectable memory error, firmware halt, GSP failure).', 'Jobs on the GPU crashed or will; new work scheduled there fails.'),
    },
    GPUXidHardware: xidAlert('GPUXidHardware', 'warning', $.xid.hardware, 'A GPU reported a hardware XID error that needs a look.', 'hardware', 79, 'GPUFellOffBus') {
      runbook: xidRunbook('hardware', 'The GPU reported an XID that points at degrading hardware (memory rows, NVLink, ECC rate), not yet fatal.', 'Jobs keep running for now; the GPU may turn fatal. Plan the repair in working hours.'),
    },
    GPUXidApplication: xidAlert('GPUXidApplication', 'info', $.xid.application, 'A GPU reported an application XID error.', 'usually the application', 48, 'GPUXidFatal') {
      runbook: xidRunbook('application', 'The GPU reported an XID that is almost always caused by the application running on it.', 'Usually one job crashed; the GPU is fine. Repeats on one GPU across different jobs point at hardware.') {
        mitigation: ['Tell the job owner (namespace and pod are on the alert); check the job logs for the kernel or memory access that failed.', 'If the same GPU reports application XIDs for different jobs, treat it as hardware: ' + cordon],
      },
    },
    // An XID in none of the classes still reaches a human: newer drivers emit codes the lists
    // do not know (154: a reset or reboot is required).
    local classified = std.set(std.flattenArrays([$.xid[c] for c in std.objectFields($.xid)])),
    local unclassified = std.foldl(std.max, classified, 0) + 1000,
    GPUXidUnclassified: hw {
      family: 'xid',
      severity: 'warning',
      expr: e.fill(|||
        $(events){xid!~"$(classified)"} > 0
      |||, { events: xidRecord, classified: std.join('|', [std.toString(c) for c in classified]) }),
      identity: $.identity.alert + ['xid'],
      summary: 'A GPU reported an XID error that no class of the catalog lists.',
      description: gpuText + ' reported XID {{ $labels.xid }} in the last ' + w.event + ' ({{ $value | printf "%.0f" }} event(s)); no class of the catalog (xid) lists it: look it up and add it to one.',
      tests: [
        t.case('new unclassified XID', true, newXid(unclassified)(55), value=1, labels=xid(unclassified)),
        t.case('old unclassified XID still held', false, [held(unclassified)] + counted(unclassified, '1x60')),
        t.case('classified XID', false, [t.series('DCGM_FI_DEV_XID_ERRORS', '_x55 ' + $.xid.fatal[0] + 'x5', { err_code: std.toString($.xid.fatal[0]) })], alsoFires=[{ alert: 'GPUXidFatal', value: 1, labels: xid($.xid.fatal[0]) }]),
      ] + incidentCases(newXid(unclassified), 1, xid(unclassified)),
      runbook: xidRunbook('fatal', "The GPU reported an XID that none of the catalog's classes (xid: " + std.join(', ', std.objectFields($.xid)) + ') lists: a code a newer driver emits, or one nobody classified yet.', 'Unknown until the code is looked up: some (154, GPU recovery action changed) mean the GPU needs a reset or the node a reboot.') {
        notes: ["Look the code up in NVIDIA's XID catalog for the driver the node runs, then add it to the class it belongs to in the catalog (xid), so that the right alert fires next time.", 'XID 154: GPU recovery action changed: the driver asks for a GPU reset or a node reboot; drain the node and do what it asks.'],
      },
    } + eventAlert,

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
          q('Double-bit errors in the last hour', 'increase(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL' + gpuSel + '[1h])'),
          q('Lifetime double-bit errors (persistent)', 'DCGM_FI_DEV_ECC_DBE_AGG_TOTAL' + gpuSel),
          q('Pending retirements and remaps', 'DCGM_FI_DEV_RETIRED_PENDING' + gpuSel + ' or DCGM_FI_DEV_ROW_REMAP_PENDING' + gpuSel),
          q('Row-remap failure (no spare rows left)', 'DCGM_FI_DEV_ROW_REMAP_FAILURE' + gpuSel),
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
        ], health='65x30', extraHealth='_x31 65x29', value=1.5 * th.eccSingleBitPerHour, without=[l.namespace, l.pod]),
      ],
      runbook: hardware(
        'The GPU corrects single-bit ECC errors at a high rate: its memory is degrading.',
        'No job is affected yet; a rising rate often precedes double-bit errors and row-remap exhaustion.',
        [
          q('Single-bit errors per hour', 'increase(DCGM_FI_DEV_ECC_SBE_VOL_TOTAL' + gpuSel + '[1h])'),
          q('Lifetime single-bit errors', 'DCGM_FI_DEV_ECC_SBE_AGG_TOTAL' + gpuSel),
          q('Pending remaps', 'DCGM_FI_DEV_ROW_REMAP_PENDING' + gpuSel),
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
      [q('Row-remap failure flag', 'DCGM_FI_DEV_ROW_REMAP_FAILURE' + gpuSel), q('Uncorrectable errors in the last day', 'increase(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL' + gpuSel + '[1d])')],
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
        [q('Pending page retirements', 'DCGM_FI_DEV_RETIRED_PENDING' + gpuSel), q('Pending row remaps', 'DCGM_FI_DEV_ROW_REMAP_PENDING' + gpuSel)],
        [step('Is a job running on the GPU?', 'Reset when it ends: coordinate with the owner.', 'Reset now.')],
        [cordon, drain, reset],
      ),
    },

    // Error rates read the per-GPU rates that the recording rules keep anyway.
    local perMinute = $.gpuAlerts.perMinute,

    local nvlinkRunbook(what) = hardware(
      "The GPU's NVLinks see " + what + ': the link between GPUs is noisy.',
      'Collective operations (AllReduce) slow down for every GPU of the job, not only this one: a multi-GPU job runs at the pace of its worst link.',
      [
        q('CRC errors per minute', '60 * rate(DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL' + gpuSel + '[5m])'),
        q('Replays and recoveries per minute', '60 * rate(DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL' + gpuSel + '[5m]) or 60 * rate(DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL' + gpuSel + '[5m])'),
        q('NVLink errors on every GPU of the node (one bad bridge shows on two GPUs)', 'sum by (' + l.gpu + ') (rate(DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL' + nodeSel + '[5m]))'),
        q('Is the job slowed down (straggler)?', 'ALERTS{alertname="GPUTrainingStraggler", ' + is(l.host) + '}'),
      ],
      [
        step('Do two GPUs of the node show errors on the links between them?', 'Suspect the NVSwitch tray or bridge: drain the node for hardware service.'),
        step('Did the errors start after a driver or firmware change?', 'Roll back and escalate to the vendor.'),
        step('Does `nvidia-smi nvlink -e -i $' + l.gpu + '` show the error counters still rising?', 'Drain and run `dcgmi diag -r 3`; open an RMA on failure.', 'A burst: watch it.'),
      ],
      [cordon, drain, 'Run the DCGM level-3 diagnostics (`dcgmi diag -r 3`) and reseat or replace the board or bridge.', rma],
    ),

    GPUNvlinkCrcErrors: hw {
      family: 'nvlink',
      severity: 'warning',
      expr: attributed(e.fill(|||
        $(flit) or $(data)
      |||, {
        flit: perMinute('DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL', th.nvlinkCrcErrorsPerMinute),
        data: perMinute('DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL', th.nvlinkCrcErrorsPerMinute),
      })),
      panelThresholds:: {
        DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL: th.nvlinkCrcErrorsPerMinute,
        DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL: th.nvlinkCrcErrorsPerMinute,
      },
      'for': '10m',
      summary: 'A GPU is seeing NVLink CRC errors.',
      description: gpuText + ' sees {{ $value | printf "%.1f" }} NVLink CRC errors per minute (threshold ' + e.num(th.nvlinkCrcErrorsPerMinute) + ').',
      tests: [
        t.case('flit CRC errors', true, [t.series('DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL', t.risingPerMinute(10 * th.nvlinkCrcErrorsPerMinute))], value=10 * th.nvlinkCrcErrorsPerMinute),
        t.case('data CRC errors', true, [t.series('DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL', t.risingPerMinute(4 * th.nvlinkCrcErrorsPerMinute))], value=4 * th.nvlinkCrcErrorsPerMinute),
        t.case('rare CRC errors', false, [t.series('DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL', t.risingPerMinute(th.nvlinkCrcErrorsPerMinute / 2))]),
        local perMinute = 10 * th.nvlinkCrcErrorsPerMinute;
        t.case('flit CRC errors across a pod exit', true, [
          t.series('DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL', '0+' + perMinute + 'x30'),
          t.series('DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL', '_x31 ' + 31 * perMinute + '+' + perMinute + 'x29', pod=false),
        ], health='65x30', extraHealth='_x31 65x29', value=perMinute, without=[l.namespace, l.pod]),
      ],
      runbook: nvlinkRunbook('CRC errors'),
    },

    GPUNvlinkReplayErrors: hw {
      family: 'nvlink',
      severity: 'warning',
      expr: attributed(perMinute('DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL', th.nvlinkReplayErrorsPerMinute)),
      panelThresholds:: { DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL: th.nvlinkReplayErrorsPerMinute },
      'for': '10m',
      summary: 'A GPU is replaying NVLink transfers at a high rate.',
      description: gpuText + ' replays {{ $value | printf "%.1f" }} NVLink transfers per minute (threshold ' + e.num(th.nvlinkReplayErrorsPerMinute) + ').',
      tests: [
        t.case('replays', true, [t.series('DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL', t.risingPerMinute(4 * th.nvlinkReplayErrorsPerMinute))], value=4 * th.nvlinkReplayErrorsPerMinute),
        t.case('few replays', false, [t.series('DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL', t.risingPerMinute(th.nvlinkReplayErrorsPerMinute / 2))]),
      ],
      runbook: nvlinkRunbook('many replayed transfers'),
    },

    GPUNvlinkRecoveryErrors: hw {
      family: 'nvlink',
      severity: 'warning',
      expr: attributed(e.fill(|||
        $(increase) > 0
      |||, { increase: increasedOver('DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL', w.throttle) })),
      summary: 'An NVLink of a GPU had to be recovered (retrained).',
      description: gpuText + ' logged {{ $value | printf "%.0f" }} NVLink recovery errors in the last ' + w.throttle + '.',
      tests: [
        t.case('link recovery', true, [t.series('DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL', '0x56 2x4')], value=2),
        t.case('old recovery', false, [t.series('DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL', '0x20 2x40')]),
      ] + churnCases('DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL', 'recovery', 2),
      runbook: nvlinkRunbook('link recoveries (retraining)'),
    },

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
          q('PCIe replays per minute', '60 * rate(DCGM_FI_DEV_PCIE_REPLAY_COUNTER' + gpuSel + '[5m])'),
          q('PCIe throughput', 'DCGM_FI_PROF_PCIE_RX_BYTES' + gpuSel + ' or DCGM_FI_PROF_PCIE_TX_BYTES' + gpuSel),
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
        q('Link width and its maximum', 'DCGM_FI_DEV_PCIE_LINK_WIDTH' + gpuSel + ' or DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH' + gpuSel),
        q('Link generation and its maximum', 'DCGM_FI_DEV_PCIE_LINK_GEN' + gpuSel + ' or DCGM_FI_DEV_PCIE_MAX_LINK_GEN' + gpuSel),
        q('PCIe replays per minute', '60 * rate(DCGM_FI_DEV_PCIE_REPLAY_COUNTER' + gpuSel + '[5m])'),
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

    local gaugeAbove(field, threshold) = e.fill(|||
      max by ($(id)) ($(field)) > $(threshold)
    |||, { id: id, field: $.exporter.workload(field), threshold: std.toString(threshold) }),

    local thermal(alert, what, field, limit) = hardware(
      "The GPU's " + what + ' has stayed above ' + e.num(limit) + ' °C for ' + $.alerts[alert]['for'] + '.',
      'The GPU throttles its clocks to protect itself: jobs slow down; sustained heat shortens its life.',
      [
        q(what + ' on every GPU of the node', field + nodeSel),
        q('Thermal throttling on the node', 'gpu:dcgm_clock_throttle_thermal:max' + nodeSel),
        q('Power draw against the limit', 'DCGM_FI_DEV_POWER_USAGE' + gpuSel),
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
                              + [t.series('DCGM_FI_DEV_GPU_UTIL', e.num(utilization(0.9)) + 'x60', entities=[i]) for i in busy], gpus=4, models=[sku, sku, sku, sku], pod=false, health=false, value=value, firing=if fires then [0] else null);
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
        'The GPU has run over ' + e.num($.thresholds.gpuTemperatureAboveFleetPeersCelsius) + ' °C above the fleet-wide average of the GPUs of its SKU at its load for ' + $.alerts.GPUHotterThanFleetPeers['for'] + ' (busy: GPU_UTIL at least ' + e.percent($.thresholds.fleetPeersBusyUtilizationRatio) + ' %, else idle; the ' + e.num($.thresholds.fleetPeersCandidates) + ' hottest GPUs of each SKU and load in each cluster are compared: once this one is fixed, the next hot one shows).',
        'None yet: the GPU is below its throttle point. Left alone, a cooling fault reaches it and the jobs on the GPU slow down.',
        [
          q('Core temperature on every GPU of the node', 'DCGM_FI_DEV_GPU_TEMP' + nodeSel),
          q("The SKU's fleet-wide average, busy and idle", 'fleet_sku_load:dcgm_gpu_temp:avg'),
          q('Power draw (load) of the GPU', 'DCGM_FI_DEV_POWER_USAGE' + gpuSel),
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
        q('Share of the last ' + $.windows.throttle + ' throttled', 'avg_over_time(gpu:dcgm_clock_throttle_' + reason + ':max' + gpuSel + '[' + $.windows.throttle + '])'),
        q('SM clock', 'DCGM_FI_DEV_SM_CLOCK' + gpuSel),
        q('Power and temperature', 'DCGM_FI_DEV_POWER_USAGE' + gpuSel + ' or DCGM_FI_DEV_GPU_TEMP' + gpuSel),
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

    // The exporter's host comes from the instance-to-host map, so that the alert can inhibit
    // the alerts of that node; the map keeps a down target's host for the whole outage, and an
    // exporter whose series were never seen within windows.missing alerts without it.
    DCGMExporterDown: hw {
      family: 'exporter',
      severity: 'warning',
      expr: e.fill(|||
        (up{job="$(job)"} == 0) * on ($(cluster), instance) group_left ($(host)) topk by ($(cluster), instance) (1, last_over_time($(hosts)[$(window)])) or on ($(cluster), instance) (up{job="$(job)"} == 0)
      |||, { job: $.exporter.job, cluster: l.cluster, host: l.host, hosts: exporterHost, window: w.missing }),
      'for': '5m',
      identity: [l.cluster, 'instance', 'job', l.host] + $.exporter.targetPodLabels,
      summary: 'A dcgm-exporter target is down: its GPUs are unmonitored.',
      description: 'dcgm-exporter {{ $labels.instance }} on {{ $labels.' + l.host + ' }} in cluster {{ $labels.' + l.cluster + ' }} has been down for ' + self['for'] + '; none of its GPU alerts can fire.',
      tests: [
        t.case('exporter down', true, [], up='1x30 0x30', health='65x30 _x30', value=0),
        t.case('exporter down since before the host map remembers', true, [], up='0x60', health=false, value=0, without=[l.host]),
        t.case('one failed scrape', false, [], up='1x58 0 1'),
      ],
      runbook: rb.exporterTarget($.exporter.job, l.cluster) {
        meaning: 'Prometheus cannot scrape a dcgm-exporter target.',
        impact: 'Every GPU alert for the GPUs of that node is blind: nothing fires, whatever happens.',
        mitigation: ['Restart the dcgm-exporter pod on the node.', 'If DCGM itself hangs, drain the node and restart the NVIDIA host engine or reboot.'],
        escalation: rb.escalation.infra,
        dashboards: ['L2', 'L3'],
      },
    },

    // Blind is its own state: most exporters of a cluster down at once is a scrape problem of
    // the cluster (a network policy, the ServiceMonitor, Prometheus itself), not of each node.
    // One ticket says so and silences, in its cluster, each target's DCGMExporterDown and the
    // tickets of GPUs and nodes read as missing (alertmanager.inhibit.exportersDownInCluster).
    DCGMExportersDownInCluster: hw {
      family: 'exporter',
      severity: 'warning',
      local down = e.fill('count by ($(cluster)) (up{job="$(job)"} == 0)', { cluster: l.cluster, job: $.exporter.job }),
      expr: e.fill(|||
        $(down) / count by ($(cluster)) (up{job="$(job)"}) > $(ratio) and $(down) > 1
      |||, { down: down, cluster: l.cluster, job: $.exporter.job, ratio: e.num($.thresholds.exportersDownRatio) }),
      'for': '5m',
      identity: [l.cluster],
      summary: 'Most dcgm-exporter targets of a cluster are down: its GPUs are unmonitored.',
      description: '{{ $value | humanizePercentage }} of the dcgm-exporter targets of job ' + $.exporter.job + ' in cluster {{ $labels.' + l.cluster + ' }} have been down for ' + self['for'] + ' (threshold ' + e.percent($.thresholds.exportersDownRatio) + ' %): the scrape is broken for the cluster, and no GPU alert there can fire.',
      // Other exporter targets of the scenario's cluster, each with its own pod.
      local other(i) = { job: $.exporter.job, instance: '10.250.1.' + i + ':9400' } + $.exporter.targetPod('node-' + i),
      local target(i, values) = t.series('up', values, other(i)),
      tests: [
        t.case('three of four exporters down', true, [], up='1x30 0x30', health='65x30 _x30', extra=[target(1, '1x30 0x30'), target(2, '1x30 0x30'), target(3, '1x60')], target={}, value=0.75, alsoFires=[
          t.also('DCGMExporterDown', 0),
          t.also('DCGMExporterDown', 0, target=other(1)),
          t.also('DCGMExporterDown', 0, target=other(2)),
        ]),
        t.case('one of four exporters down', false, [], up='1x30 0x30', health='65x30 _x30', extra=[target(1, '1x60'), target(2, '1x60'), target(3, '1x60')], alsoFires=[t.also('DCGMExporterDown', 0)]),
      ],
      runbook: {
        meaning: 'More than ' + e.percent($.thresholds.exportersDownRatio) + ' % of the dcgm-exporter targets (job ' + $.exporter.job + ') of the cluster have been down for ' + $.alerts.DCGMExportersDownInCluster['for'] + '. Their GPUs are unseen, not known down: the availability SLO counts their capacity as blind.',
        impact: "No GPU alert of those nodes can fire. While this fires, each target's DCGMExporterDown and the tickets of GPUs and nodes read as missing are silenced in the cluster.",
        queries: [
          q('Targets down, by node', 'up{job="' + $.exporter.job + '", ' + is(l.cluster) + '} == 0'),
          q('Share of the targets down', 'avg(1 - up{job="' + $.exporter.job + '", ' + is(l.cluster) + '})'),
        ],
        diagnosis: [
          step('Did the exporter pods restart together (an upgrade of the DaemonSet or the GPU Operator)?', 'Wait for the rollout; if pods crash, read `kubectl logs --previous` of one.'),
          step("Did a network policy, the ServiceMonitor or Prometheus's configuration change?", 'Roll the change back.', "Check Prometheus's own health (its targets page, its logs)."),
        ],
        mitigation: ['Restore the scrape: roll back the change that broke it.'],
        escalation: rb.escalation.infra,
        dashboards: ['L2'],
      },
    },

    // The job self-check: GPU series arrive from exporter targets of another job while the
    // catalog's job (exporter.job) has no target in the cluster (the GPU Operator's
    // ServiceMonitor names its job nvidia-dcgm-exporter, the Helm chart's dcgm-exporter).
    // DCGMExporterDown reads up of the catalog's job: it cannot fire for those targets, and an
    // exporter outage would read as every GPU missing.
    DCGMExporterJobMismatch: hw {
      local h = $.exporter.healthText,
      // The job of the scenarios' other exporter: a documented job other than the catalog's.
      local other = $.exporter.otherJob,
      family: 'exporter',
      severity: 'warning',
      expr: e.fill(|||
        count by ($(cluster), job) (group by ($(cluster), job, instance) ($(health))) unless on ($(cluster)) group by ($(cluster)) (up{job="$(job)"})
      |||, { cluster: l.cluster, health: $.exporter.health(e.match('job', '!=', $.exporter.job)), job: $.exporter.job }),
      'for': '15m',
      identity: [l.cluster, 'job'],
      summary: "GPU series arrive under another job than the catalog's exporter job: exporter outages cannot alert.",
      description: '{{ $value | printf "%.0f" }} exporter targets of job {{ $labels.job }} send GPU series (' + h + ') in cluster {{ $labels.' + l.cluster + ' }}, where job ' + $.exporter.job + ' (exporter.job) has no target: DCGMExporterDown watches up{job="' + $.exporter.job + '"} and cannot fire for them.',
      tests: [
        t.case("another exporter job's name", true, [t.series($.exporter.healthField, '65x60', { job: other })], health=false, up='_x60', extra=[t.series('up', '1x60', { job: other, instance: '10.250.0.9:9400' })], target={ job: other }, value=1),
        t.case("the catalog's job", false, []),
        t.case("a second exporter job beside the catalog's", false, [t.series($.exporter.healthField, '65x60', { job: other, instance: 'other-node:9400', [l.host]: 'other-node' })]),
      ],
      runbook: {
        meaning: 'GPU series (' + h + ') arrive in this cluster from exporter targets of a job (the job label of the alert), and the catalog watches job ' + $.exporter.job + ' (exporter.job), which has no target there.',
        impact: 'DCGMExporterDown reads up{job="' + $.exporter.job + '"}: when one of these exporters goes down nothing says so, and its GPUs read as missing instead. The target queries of the exporter runbooks select nothing.',
        queries: [
          q('Jobs sending GPU series', 'count by (job) (group by (job, instance) (' + $.exporter.health(is(l.cluster)) + '))'),
          q("Targets of the catalog's job", 'up{job="' + $.exporter.job + '", ' + is(l.cluster) + '}'),
        ],
        diagnosis: [
          step('Is the job one of the documented ones (' + std.join(', ', $.exporter.documentedJobs) + ": the GPU Operator's and the Helm chart's ServiceMonitors)?", 'Set exporter.job to the job your scrape configuration gives the exporter, and regenerate.', 'Someone scrapes the exporter under a job of their own: settle on one job name, in the scrape configuration and in exporter.job.'),
        ],
        mitigation: ['Set exporter.job to the job name the exporter targets carry (the GPU Operator: nvidia-dcgm-exporter) and regenerate; the ticket resolves once the catalog watches that job.'],
        escalation: rb.escalation.infra,
        dashboards: ['L2'],
      },
    },

    // The label profile self-check: GPU series without the host label the catalog expects
    // (an exporter version that names it differently) or without cluster. Inhibition and every
    // per-node alert compare those labels; without them they cannot work.
    DCGMExporterLabelMismatch: hw {
      local h = $.exporter.healthField,
      local health = $.exporter.health,
      local missing = [l.host] + (if $.exporter.clusterOnSeries then [l.cluster] else []),
      local otherHost = if l.host == 'Hostname' then 'hostname' else 'Hostname',
      family: 'exporter',
      severity: 'warning',
      // GPUs per target without each label (a branch never groups by the label it lacks).
      local without(m) =
        local by = std.join(', ', [x for x in [l.cluster, 'job', 'instance'] if x != m]);
        e.fill(|||
          count by ($(by)) (group by ($(by), $(uuid)) ($(health))) > 0
        |||, { by: by, uuid: l.uuid, health: health(e.match(m, '=', '')) }),
      expr: std.join(' or ', [without(m) for m in missing]),
      'for': '5m',
      identity: [l.cluster, 'job', 'instance'],
      summary: 'GPU series lack a label the catalog expects: per-node alerts and inhibition cannot work for them.',
      description: '{{ $value | printf "%.0f" }} GPUs reporting ' + $.exporter.healthText + ' through {{ $labels.job }} target {{ $labels.instance }} carry no ' + std.join(' or no ', missing) + ' label: the label profile (exporter.version ' + $.exporter.version + ', labels.host ' + l.host + ') does not match what this exporter sends.',
      tests: [
        t.case('exporter names the host label ' + otherHost, true, [t.series(h, '65x60', { [l.host]: '', [otherHost]: 'gpu-node-1', instance: '10.250.0.2:9400' })], target={ job: $.exporter.job, instance: '10.250.0.2:9400' }, value=1),
        t.case('labels as the profile says', false, []),
      ] + (if $.exporter.clusterOnSeries then [
             t.case('series without ' + l.cluster, true, [t.series(h, '65x60', { [l.cluster]: '', instance: '10.250.0.3:9400' })], target={ job: $.exporter.job, instance: '10.250.0.3:9400' }, without=[l.cluster], value=1),
           ] else []),
      runbook: {
        meaning: 'GPU series (' + $.exporter.healthText + ') from this exporter target lack the host label the catalog expects (' + l.host + ')' + (if $.exporter.clusterOnSeries then ' or the ' + l.cluster + ' label' else '') + '.',
        impact: 'Every alert and inhibit rule that compares the host or cluster of these GPUs sees an empty value: per-node grouping, the exporter-down and cordon inhibitions and the dashboards miss these GPUs. Nothing about them is silenced by mistake (inhibitions require the labels), but nothing is grouped right either.'
                + (if $.alertmanager.inhibit.labelMismatch == 'DCGMExporterLabelMismatch' && $.alertmanager.inhibit.labelMismatchTargets != [] then ' While this ticket fires it silences, in its cluster, ' + std.join(', ', $.alertmanager.inhibit.labelMismatchTargets) + ' (every GPU reads as missing under its old labels); pages are never silenced by it.' else ''),
        queries: [
          q('The labels the target really sends', 'topk(1, ' + health('job="$job", instance="$instance"') + ')'),
          q('Targets sending series without the host label', 'count by (job, instance) (' + health(l.host + '=""') + ')'),
        ],
        diagnosis: [
          step('Does the series carry the other spelling of the host label (Hostname up to dcgm-exporter 4.8.2, hostname from 4.8.3)?', 'The exporter was upgraded or differs from exporter.version: set exporter.version (or exporter.hostLabel) in your catalog to match, and regenerate.'),
          step('Is the ' + l.cluster + ' label missing?', 'Add it by relabeling in the scrape config (or, with one Prometheus per cluster that names it only as an external label, set topology.clusterExternal: true).', 'Check the relabeling rules of the scrape config: one of them drops or renames the label.'),
        ],
        mitigation: ['Make the catalog and the exporter agree (exporter.version, exporter.hostLabel or relabeling) and regenerate; the alert resolves once the series carry the labels.'],
        escalation: rb.escalation.infra,
        dashboards: ['L2'],
      },
    },

    // The exporter's default counter set (the GPU Operator's default) instead of the generated
    // counter file: GPUs report the default fields but none of the counter file's own, so
    // every alert that needs one of those can never fire. One ticket per cluster; the runbook
    // lists the alerts it leaves blind. The exporter applies its counter file to every GPU of
    // its node, so the first GPU of each node (index 0) tells, at an eighth of the series.
    [if $.exporter.counterFileFields != [] then 'DCGMExporterStockCounterSet']: hw {
      local h = $.exporter.healthText,
      local fields = $.exporter.counterFileFields,
      family: 'exporter',
      severity: 'warning',
      // Each series on the first GPU of its node ({gpu="0"}).
      local reported(f) = e.fill(|||
        group by ($(cluster)) ($(field){$(gpu)="0"})
      |||, { cluster: l.cluster, field: f, gpu: l.gpu }),
      expr: e.fill(|||
        count by ($(cluster)) (group by ($(cluster), $(host)) ($(health))) unless on ($(cluster)) ($(counterFile))
      |||, { cluster: l.cluster, host: l.host, health: $.exporter.health(e.match(l.gpu, '=', '0')), counterFile: std.join(' or ', [reported(f) for f in fields]) }),
      // An exporter rollout replaces its pods within minutes; a counter file is missing for good.
      'for': '30m',
      identity: [l.cluster],
      summary: "GPUs report only the exporter's default fields: the alerts that need the counter file cannot fire.",
      description: '{{ $value | printf "%.0f" }} nodes of cluster {{ $labels.' + l.cluster + ' }} have reported ' + h + ' for ' + self['for'] + ' but none reports any field the counter file adds (' + std.join(', ', fields) + '): dcgm-exporter runs with its default counter set, so the alerts that need those fields (the runbook lists them) cannot fire. Deploy the generated counter file.',
      tests: [
        t.case('the exporter runs its default counter set', true, [], counterFile=false, target={}, value=1),
        t.case('two GPUs, default counter set: one node', true, [], gpus=2, counterFile=false, target={}, value=1),
        t.case('the counter file is deployed', false, []),
        t.case("the first GPU of two sends the counter file's fields", false, [t.series(fields[0], '0x60', entities=[0])], gpus=2, counterFile=false),
        t.case("the counter file's fields arrive late", false, [t.series(fields[0], '_x40 0x20')], counterFile=false),
      ],
      runbook: {
        local fields = $.exporter.counterFileFields,
        meaning: "The GPUs of the cluster (judged on the first GPU of each node: the exporter applies one counter file to all of a node's GPUs) report the exporter's default fields (" + h + ') but none reports any field that only the counter file collects (' + std.join(', ', fields) + "): dcgm-exporter runs with its default counter set (the GPU Operator's and the Helm chart's default) instead of the generated one.",
        impact: "Every alert that needs a field outside the default set can never fire in the cluster (listed below with the fields each needs); nothing else says so, and the dashboards' panels on those fields stay empty.",
        queries: [
          q("The counter file's fields the cluster reports", 'count by (__name__) ({__name__=~"' + std.join('|', fields) + '", ' + l.cluster + '="$' + l.cluster + '"})'),
          q('GPUs per exporter target', 'count by (job, instance) (' + $.exporter.health(l.cluster + '="$' + l.cluster + '"') + ')'),
        ],
        diagnosis: [
          step('Does the exporter run with --collectors (-f) pointing at the generated counter file?', 'The file is mounted but its fields do not arrive: check that the ConfigMap holds the generated file and that the exporter pods restarted after it changed.', 'Deploy the counter file: the GPU Operator reads it from the ConfigMap named in dcgmExporter.config.name, the Helm chart from its counter-file values.'),
        ],
        mitigation: [
          'Deploy the generated counter file (exporter/dcgm-counters.csv, or exporter/configmap.yaml for the GPU Operator, exporter/helm-values.yaml for the Helm chart) and restart the exporter pods; the ticket resolves once the fields arrive.',
        ],
        escalation: rb.escalation.infra,
        dashboards: ['L2'],
      },
    },

    // A GPU that stopped reporting is a fault only while its node is still there: a node the
    // autoscaler deleted takes its exporter target, GPU series and Kubernetes node away at
    // once, without an up == 0. The node is there while its other GPUs still report, or while
    // kube-state-metrics still lists it.
    GPUSeriesMissing: hw {
      family: 'exporter',
      severity: 'warning',
      local h = $.exporter.healthField,
      local health = $.exporter.health,
      local nodeInAPI = e.fill(|||
        label_replace(kube_node_info{job="$(job)"}, "$(host)", "$1", "$(node)", "(.+)")
      |||, { job: $.kubeStateMetrics.job, host: l.host, node: l.node }),
      // A GPU is its UUID on its node, whatever its index (NVML renumbers the GPUs when a
      // reboot loses one) and its pod labels (one alert per GPU): missing is a UUID gone from
      // its node with no GPU reporting in its slot (bus id: an RMA swap puts a new UUID there).
      local gpu = [l.cluster, l.host, l.gpu, l.uuid, l.pciBusId, l.modelName],
      expr: e.fill(|||
        max by ($(gpu)) (
            $(present)
          unless on ($(cluster), instance) (up{job="$(exporter)"} == 0)
        )
        unless on ($(cluster), $(host), $(uuid)) $(health)
        unless on ($(cluster), $(host), $(slot)) $(inSlot)
        and on ($(cluster), $(host)) (
            group by ($(cluster), $(host)) ($(gpuInfo))
          or group by ($(cluster), $(host)) ($(nodeInAPI))
        )
      |||, { gpu: std.join(', ', gpu), present: e.fill('present_over_time($(health)[$(window)])', { health: health(), window: w.missing }), health: health(), inSlot: health(e.match(l.pciBusId, '!=', '')), cluster: l.cluster, host: l.host, exporter: $.exporter.job, uuid: l.uuid, slot: l.pciBusId, gpuInfo: names.gpuInfo, nodeInAPI: nodeInAPI }),
      'for': '10m',
      summary: 'A GPU stopped reporting while its node is still in the cluster.',
      description: gpuText + ' stopped reporting (' + $.exporter.healthText + ') while its node is still in the cluster and its exporter is not down: the GPU may have fallen off the bus or the driver lost it.',
      tests: [
        t.case('GPU vanished, its node still in the cluster', true, [], health='65x30 _x30', nodeInfo='1x60', value=1),
        t.case('one of two GPUs vanished, no kube-state-metrics', true, [
          t.series(h, '65x30 _x30', entities=[0]),
          t.series(h, '65x60', entities=[1]),
        ], gpus=2, health=false, firing=[0], value=1),
        // The scenario's cluster has one node: with it gone, kube-state-metrics lists none.
        t.case('node deleted by the autoscaler', false, [], health='65x30 _x30', up='1x30 _x30', nodeInfo='1x30 _x30', alsoFires=[t.also('GPUKubeStateMetricsDown', 1, target={})]),
        t.case('exporter down too', false, [], health='65x30 _x30', up='1x30 0x30', nodeInfo='1x60', alsoFires=[{ alert: 'DCGMExporterDown', value: 0 }]),
        t.case('pod changed on the GPU', false, [], health='65x30 _x30', extraHealth='_x31 65x29', nodeInfo='1x60'),
        // Its pod exited an hour ago, so the GPU's series with and without the pod labels are
        // both within the window: one alert, not two.
        t.case('GPU vanished after its pod exited', true, [t.series(h, '65x20 _x40'), t.series(h, '_x20 65x10 _x30', pod=false)], health=false, nodeInfo='1x60', value=1),
        // (Without the bus id, as exporters before 3.x send: the UUID alone tells.)
        t.case('a reboot renumbered the GPUs', false, [t.series(h, '65x30 _x30', labels={ [l.gpu]: '1', [l.pciBusId]: '' }), t.series(h, '_x31 65x29', labels={ [l.gpu]: '0', [l.pciBusId]: '' })], health=false, nodeInfo='1x60'),
        t.case('an RMA swap: a new GPU in the same slot', false, [t.series(h, '65x30 _x30'), t.series(h, '_x31 65x29', labels={ [l.uuid]: 'GPU-replacement' })], health=false, nodeInfo='1x60'),
      ] + [
        // A GPU that sends only a later health field (a vGPU guest sends no temperature), or
        // whose first one stops while it goes on reporting, is there.
        t.case('a GPU that sends only ' + f, false, [t.series(f, '1000x60')], health=false, nodeInfo='1x60')
        for f in $.exporter.healthFields[1:]
      ] + [
        t.case('its ' + f + ' stops, its other health fields go on', false, [t.series(f, '65x30 _x30')] + [t.series(g, '1000x60') for g in $.exporter.healthFields if g != f], health=false, nodeInfo='1x60')
        for f in $.exporter.healthFields[:1]
        if std.length($.exporter.healthFields) > 1
      ],
      runbook: hardware(
        'A GPU stopped reporting any of its health fields (' + $.exporter.healthText + ') for ' + $.alerts.GPUSeriesMissing['for'] + ' while its node is still in the cluster (its other GPUs report, or kube-state-metrics lists the node) and its exporter is not down.',
        'The GPU is probably gone (fell off the bus, driver lost it): its jobs are dead and nothing else about it can alert. A node deleted by the autoscaler does not raise this alert: its GPUs and its Kubernetes node leave together.',
        [
          q('Which GPUs of the node still report', 'group by (' + l.gpu + ', ' + l.uuid + ') (' + health(nodeSel[1:std.length(nodeSel) - 1]) + ')'),
          q("Last XID of the node's GPUs", 'last_over_time(DCGM_FI_DEV_XID_ERRORS' + nodeSel + '[' + $.windows.missing + '])'),
          q('Is the node still in the Kubernetes API', 'kube_node_info{' + l.node + '="$' + l.host + '"}'),
        ],
        [
          step('Does `nvidia-smi` on the node list the GPU?', 'The exporter lost it: restart dcgm-exporter.', ''),
          step('Does the kernel log (`dmesg`) show XID 79 or "GPU has fallen off the bus"?', 'The GPU fell off the bus: follow GPUFellOffBus (drain, reboot, RMA if it repeats).', 'The driver lost the GPU another way: drain and reboot the node.'),
        ],
        [cordon, drain, 'Reboot the node; if the GPU does not come back, open an RMA.'],
      ) {
        notes: ['How a lost GPU reaches a human: dcgm-exporter often drops a GPU that fell off the bus instead of reporting XID 79 for long, so GPUFellOffBus (a page) may never fire. This ticket is the backstop: it fires ' + $.alerts.GPUSeriesMissing['for'] + ' after the GPU went silent. Treat it as urgent when `dmesg` shows XID 79.']
               + (if std.member($.alertmanager.inhibit.labelMismatchTargets, 'GPUSeriesMissing') && $.alertmanager.inhibit.labelMismatch != '' then ['While ' + $.alertmanager.inhibit.labelMismatch + ' fires in the cluster (an exporter upgrade renamed a label, so every GPU reads as missing under its old labels), this ticket is silenced there: fix the label profile first.'] else []),
      },
    },
  },
}
