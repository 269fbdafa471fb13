// XID errors: the driver's error codes, detected once for the fleet as new events (the gauge
// holds the last code forever; the exporter's per-code counts see repeats) and alerted by
// class (xids.libsonnet): fell off the bus and fatal page, hardware tickets, application
// informs, and a code no class lists tickets.
local e = import '../lib/expr.libsonnet';
local gpu = import '../lib/gpu.libsonnet';
local names = import '../lib/names.libsonnet';
local rb = import '../lib/runbook.libsonnet';
local t = import '../lib/test.libsonnet';
{
  // Every XID class (xids.libsonnet) has its alert here; a class without one would leave its
  // codes alerting nowhere.
  assert std.setDiff(std.objectFields($.xid), ['application', 'fatal', 'fellOffBus', 'hardware']) == [] : 'xid: classes are application, fatal, fellOffBus and hardware; ' + std.join(', ', std.setDiff(std.objectFields($.xid), ['application', 'fatal', 'fellOffBus', 'hardware'])) + ' has no alert',

  // Recording rules the alerts read. XID events are detected once for the whole fleet, and the
  // XID alerts filter the (tiny) result by code.
  local xidRecord = names.xidEvents($.windows.event),
  local xidTotalRecord = 'gpu:dcgm_exp_xid_errors_total:max',
  records+: {
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

  alerts+: {
    local g = gpu($),
    local fill = g.fill,
    local l = $.labels,
    local w = $.windows,
    local hw = g.owner,
    local gpuText = g.gpuText,
    local q = rb.query,
    local step = rb.step,
    local gpuSel = g.gpuSel,
    local cordon = g.cordon,
    local drain = g.drain,
    local reset = g.reset,
    local rma = g.rma,
    local incidentCases = g.incidentCases,
    local eventAlert = g.eventAlert,

    local xid(code) = { xid: std.toString(code) },
    // The exporter's cumulative per-code count beside the gauge, where it is collected: the
    // series it sends with every XID.
    local total = $.exporter.xidTotalField,
    local counted(code, values, labels={}, pod=true) = if total == null then [] else [t.series(total, values, xid(code) + labels, pod=pod)],
    local newXid(code) = function(minute) [
      t.series('DCGM_FI_DEV_XID_ERRORS', '_x' + minute + ' ' + code + 'x' + (60 - minute), { err_code: std.toString(code) }),
    ] + counted(code, '_x' + minute + ' 1x' + (60 - minute)),
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
                 t.case(
                   'the job dies with the XID: the count moves to the series without the pod',
                   true,
                   [held(code, pod=false)] + counted(code, '_x55 1 stale') + counted(code, '_x56 1x4', pod=false),
                   value=1,
                   labels=xid(code) + { [k]: exporterPod[k] for k in [l.namespace, l.pod] if std.objectHas(exporterPod, k) },
                   // (A Slurm exporter is a host's: the series without the job carry none.)
                   without=if exporterPod == {} then $.identity.workload else [],
                   alsoFires=if kept then [{ alert: alert, value: 1, labels: xid(code) }] else [],
                 ),
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
        q('The last XID of this GPU', fill('DCGM_FI_DEV_XID_ERRORS$(gpuSel)')),
      ] + (if $.exporter.xidCountField == null then [] else [
             q('Events of each XID code on this GPU (a repeat shows here, not in the last XID)', $.exporter.xidCountField + gpuSel),
           ]) + (if $.exporter.xidTotalField == null then [] else [
                   q('XIDs of each code on this GPU since its exporter started (a repeat shows here, not in the last XID)', $.exporter.xidTotalField + gpuSel),
                 ]) + [
        q('XIDs on every GPU of the node', fill('DCGM_FI_DEV_XID_ERRORS$(nodeSel) > 0')),
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
        t.case(
          'classified XID',
          false,
          [t.series('DCGM_FI_DEV_XID_ERRORS', '_x55 ' + $.xid.fatal[0] + 'x5', { err_code: std.toString($.xid.fatal[0]) })],
          alsoFires=[{ alert: 'GPUXidFatal', value: 1, labels: xid($.xid.fatal[0]) }],
        ),
      ] + incidentCases(newXid(unclassified), 1, xid(unclassified)),
      runbook: xidRunbook('fatal', "The GPU reported an XID that none of the catalog's classes (xid: " + std.join(', ', std.objectFields($.xid)) + ') lists: a code a newer driver emits, or one nobody classified yet.', 'Unknown until the code is looked up: some (154, GPU recovery action changed) mean the GPU needs a reset or the node a reboot.') {
        notes: ["Look the code up in NVIDIA's XID catalog for the driver the node runs, then add it to the class it belongs to in the catalog (xid), so that the right alert fires next time.", 'XID 154: GPU recovery action changed: the driver asks for a GPU reset or a node reboot; drain the node and do what it asks.'],
      },
    } + eventAlert,
  },
}
