// Fleet cohorts: GPUs grouped by a label their series carry (driver version, SKU, or any label
// you relabel onto the exporter's series, such as a node pool), each cohort's GPU count, SM
// activity and hardware error events, and an alert when a cohort's error rate departs from
// the rest of its cluster: a driver regression on 5 % of the fleet shows as its cohort, long
// before it shows in fleet averages.
//
// Cohorts are compared within a cluster (the rest of the cluster is the control group), which
// also keeps the rules shard-local on a fleet of one Prometheus per cluster.
local e = import 'lib/expr.libsonnet';
local names = import 'lib/names.libsonnet';
local t = import 'lib/test.libsonnet';
{
  // Cohort name -> the label of the exporter's series that tells its cohorts apart.
  cohorts:: {
    driver: $.labels.driverVersion,
    sku: $.labels.modelName,
  },

  // The error signals cohorts are compared on (records cluster_<cohort>:dcgm_<signal>_events).
  cohortSignals:: std.objectFields(signals),

  thresholds+: {
    // A cohort's error events per GPU above this multiple of the rest of its cluster's...
    cohortErrorRatio: 3,
    // ...counting at least this many events in the window (fewer is noise).
    cohortMinEvents: 3,
  },

  windows+: {
    cohort: '1d',
  },

  local l = $.labels,
  local th = $.thresholds,
  local w = $.windows,
  local h = $.exporter.healthField,
  local level(c) = e.fill(|||
    cluster_$(cohort)
  |||, { cohort: c }),
  local gpus(c) = e.fill(|||
    $(level):dcgm_gpus:count
  |||, { level: level(c) }),
  local events(c, signal) = e.fill(|||
    $(level):dcgm_$(signal)_events:sum$(window)
  |||, { level: level(c), signal: signal, window: w.cohort }),
  // Each GPU once, with its cohort label.
  local members(label) = e.fill(|||
    group $(by) ($(health))
  |||, { by: e.by($.identity.gpuJoin + [label]), health: $.exporter.health() }),
  // The error signals compared: events of the cohort window per GPU.
  local signals = {
    // New fatal XIDs, counted by their starts (fatalStarts).
    fatal_xid: {
      perGPU: e.fill(|||
        sum_over_time($(starts)[$(window)])
      |||, { starts: fatalStarts, window: w.cohort }),
    },
    // Double-bit ECC errors, whole: increase() extrapolates a little past the samples.
    ecc_dbe: {
      perGPU: e.fill(|||
        round(increase($(counter)[$(window)]))
      |||, { counter: names.gpuCounter('DCGM_FI_DEV_ECC_DBE_VOL_TOTAL'), window: w.cohort }),
    },
  },

  // The event record holds a fatal XID for its whole window, so an event starts at the
  // evaluation where it appears, absent one evaluation before: per GPU, one sample per start,
  // its value the number of codes that started. Both evaluations read are past ones (offset
  // one and two intervals): the event rule's group may evaluate after this one at the same
  // instant, and its newest sample must not decide.
  local fatal = e.fill(|||
    $(events){xid=~"$(codes)"}
  |||, { events: names.xidEvents($.windows.event), codes: std.join('|', [std.toString(c) for c in $.xid.fatal + $.xid.fellOffBus]) }),
  local fatalStarts = 'gpu:dcgm_fatal_xid_errors:starts',
  // Every record and alert of this file is in the section `cohorts` (enabled.cohorts).
  local inCohorts(entries) = std.mapWithKey(function(_, x) x { section: 'cohorts' }, entries),

  records+: inCohorts({
    [fatalStarts]: {
      family: 'cohort',
      comments: [
        'Reads the XID event rule of another group at its last two evaluations, never at this instant: whichever group evaluates first.',
        'pint disable rule/dependency',
      ],
      local i = e.seconds($.recording.interval),
      expr: e.fill(|||
        count $(by) ($(fatal) offset $(last)s unless $(fatal) offset $(before)s)
      |||, { by: e.by($.identity.gpuJoin), fatal: fatal, last: std.toString(i), before: std.toString(2 * i) }),
    },
  } + {
    [gpus(c)]: {
      family: 'cohort',
      expr: e.fill(|||
        count $(by) ($(members))
      |||, { by: e.by([l.cluster, $.cohorts[c]]), members: members($.cohorts[c]) }),
    }
    for c in std.objectFields($.cohorts)
  } + {
    [level(c) + ':dcgm_sm_active:avg']: {
      family: 'cohort',
      local label = $.cohorts[c],
      expr: e.fill(|||
        avg $(by) (avg $(gpu) (DCGM_FI_PROF_SM_ACTIVE) * $(on) group_left ($(label)) $(members))
      |||, { by: e.by([l.cluster, label]), gpu: e.by($.identity.gpuJoin), on: e.on($.identity.gpuJoin), label: label, members: members(label) }),
      // Two GPUs on driver 550 at 0.4 and 0.6, one on 535 at 0.2.
      local g(i, driver) = t.gpu(l, 'node-a', i) { [l.driverVersion]: driver },
      tests: [t.recordCase('two drivers', [
        t.series('DCGM_FI_PROF_SM_ACTIVE', v[2] + 'x60', g(v[0], v[1]))
        for v in [[0, '550.90.07', 0.4], [1, '550.90.07', 0.6], [2, '535.183.01', 0.2]]
      ] + [
        t.series(h, '65x60', g(v[0], v[1]))
        for v in [[0, '550.90.07'], [1, '550.90.07'], [2, '535.183.01']]
      ], [
        x { labels+: { [l.cluster]: 'prod' } }
        for x in (
          if c == 'driver' then [t.sample({ [l.driverVersion]: '535.183.01' }, 0.2), t.sample({ [l.driverVersion]: '550.90.07' }, 0.5)] else [t.sample({ [l.modelName]: 'NVIDIA H100 80GB HBM3' }, 0.4)]
        )
      ], 'round(' + level(c) + ':dcgm_sm_active:avg, 0.001)')],
    }
    for c in std.objectFields($.cohorts)
  } + {
    [events(c, s)]: {
      family: 'cohort',
      comments: [
        'Reads the per-GPU records of another group: at most one evaluation interval behind, against a window of ' + w.cohort + '.',
        'pint disable rule/dependency',
      ],
      local label = $.cohorts[c],
      expr: e.fill(|||
        sum $(by) (($(perGPU)) * $(on) group_left ($(label)) $(members))
      |||, { by: e.by([l.cluster, label]), perGPU: signals[s].perGPU, on: e.on($.identity.gpuJoin), label: label, members: members(label) }),
    }
    for c in std.objectFields($.cohorts)
    for s in std.objectFields(signals)
  }),

  alerts+: inCohorts({
    ['GPUCohort' + std.asciiUpper(c[0]) + c[1:] + 'Errors']: {
      team: $.teams.infra,
      family: 'cohort',
      severity: 'warning',
      local label = $.cohorts[c],
      // Events per GPU of the cohort against those of the rest of its cluster, per signal.
      local departs(s) =
        local ev = events(c, s), n = gpus(c);
        local rest(x) = e.fill(|||
          (sum $(by) ($(x)) - $(on) group_right () $(x))
        |||, { by: e.by([l.cluster]), on: e.on([l.cluster]), x: x });
        e.fill(|||
          label_replace(($(events) / $(gpus) > $(ratio) * $(restEvents) / $(restGpus)) and $(events) >= $(minEvents), "signal", "$(signal)", "", "")
        |||, { events: ev, gpus: n, ratio: e.num(th.cohortErrorRatio), restEvents: rest(ev), restGpus: rest(n), minEvents: e.num(th.cohortMinEvents), signal: s }),
      expr: std.join(' or ', [departs(s) for s in std.objectFields(signals)]),
      // The cohort window smooths already: a short for.
      'for': '15m',
      identity: [l.cluster, label, 'signal'],
      summary: 'One ' + c + ' cohort of GPUs has far more hardware errors than the rest of its cluster.',
      description: 'GPUs with ' + label + '={{ $labels.' + label + ' }} in cluster {{ $labels.' + l.cluster + ' }} had {{ $value | humanize }} {{ $labels.signal }} events per GPU in the last ' + w.cohort + ', over ' + e.num(th.cohortErrorRatio) + '× the rest of the cluster: suspect what the cohort shares (its ' + c + ').',
      tests:
        // Four GPUs of the scenario: the first in a cohort of its own, three in another (with
        // two drivers, the skew ticket fires too).
        local split = if c == 'driver' then { drivers: ['535.183.01', '550.90.07', '550.90.07', '550.90.07'] } else { models: ['NVIDIA A100-SXM4-80GB', 'NVIDIA H100 80GB HBM3', 'NVIDIA H100 80GB HBM3', 'NVIDIA H100 80GB HBM3'] };
        local cohortOf = if c == 'driver' then split.drivers[0] else split.models[0];
        local also = if c == 'driver' then [t.also('GPUDriverVersionSkew', 2, target={})] else [];
        local case(name, fires, series, target=null, value=null) =
          t.case(name, fires, series, gpus=4, drivers=std.get(split, 'drivers', []), models=std.get(split, 'models', []), target=target, value=value, alsoFires=also);
        [
          case('three double-bit errors on the GPU of one ' + c, true, [t.series('DCGM_FI_DEV_ECC_DBE_VOL_TOTAL', '0x10 3x50', entities=[0])], target={ [label]: cohortOf, signal: 'ecc_dbe' }, value=3),
          // Early in the hour, so that the fatal XID page's incident is over at evaluation.
          case('three fatal XIDs on the GPU of one ' + c, true, [t.series('DCGM_FI_DEV_XID_ERRORS', '_ 48x4 62x4 48x50', { err_code: '48' }, entities=[0])], target={ [label]: cohortOf, signal: 'fatal_xid' }, value=3),
          case('the same errors on every ' + c, false, [t.series('DCGM_FI_DEV_ECC_DBE_VOL_TOTAL', '0x10 3x50')]),
          case('two errors: noise', false, [t.series('DCGM_FI_DEV_ECC_DBE_VOL_TOTAL', '0x10 2x50', entities=[0])]),
        ],
      runbook: {
        meaning: 'The GPUs of one ' + c + ' (' + label + ') had over ' + e.num(th.cohortErrorRatio) + '× the ' + std.strReplace(
          std.join(' or ', std.objectFields(signals)),
          '_',
          ' ',
        ) + ' events per GPU of the rest of their cluster in the last ' + w.cohort + ' (at least ' + e.num(th.cohortMinEvents) + ' events).',
        impact: 'Jobs on the cohort fail more often; if the cohort is a new driver or firmware, the rollout spreads the failures.',
        queries: [
          { title: 'Events per GPU by ' + c, expr: e.fill(|||
            $(events){$(cluster)="$$(cluster)"} / $(gpus){$(cluster)="$$(cluster)"}
          |||, { events: events(c, 'fatal_xid'), gpus: gpus(c), cluster: l.cluster }) },
          { title: 'Double-bit ECC events per GPU by ' + c, expr: e.fill(|||
            $(events){$(cluster)="$$(cluster)"} / $(gpus){$(cluster)="$$(cluster)"}
          |||, { events: events(c, 'ecc_dbe'), gpus: gpus(c), cluster: l.cluster }) },
          { title: 'GPUs by ' + c, expr: e.fill(|||
            $(gpus){$(cluster)="$$(cluster)"}
          |||, { gpus: gpus(c), cluster: l.cluster }) },
        ],
        diagnosis: [
          { check: 'Is the cohort new (a driver or firmware rollout in progress)?', yes: 'Stop the rollout and roll the cohort back: this is the regression the cohort view exists for.', no: '' },
          { check: 'Are the events concentrated on a few GPUs of the cohort (L2 XID panel, L5)?', yes: 'Bad parts, not the cohort: follow the per-GPU alerts.', no: 'Escalate to the vendor with the cohort comparison.' },
        ],
        mitigation: ['Roll the cohort back to the fleet baseline.', 'Drain the worst GPUs of the cohort.'],
        escalation: 'Infrastructure on-call; the hardware vendor for SKU cohorts.',
        dashboards: ['L2'],
      },
    }
    for c in std.objectFields($.cohorts)
  }),
}
