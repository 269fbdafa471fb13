// Service level objectives and their multi-window multi-burn-rate alerts.
//
// An SLO: team (owner, routing), objective (share of good events), period, description,
// `by` (the labels one SLO series is kept per), alerts (by name suffix: severity, for), tiers
// (burn-rate factor with a long and a short window, each belonging to one alert), and two
// hidden functions: badEvents(window) and events(window), the PromQL rates of bad and of all
// events over a window (GPUs for availability: GPU-seconds per second), errorRatio(window),
// their share, and scenario(bad, idleAfter) for the generated promtool cases (called on the SLO
// with its key as a hidden `name`, for the messages that name it): series in which
// a share `bad` of events fail for the whole test (or 'burst': all fail in the last minute
// only), traffic stopping after idleAfter minutes where events are requests, with the target
// labels, the GPUs the scenario needs and the error ratio the SLO then sees as value.
//
// Each SLO becomes: slo:sli_error:ratio_rate<window> for every window it uses (one rule per
// window, all SLOs in it, told apart by the `slo` label), slo:objective:ratio,
// slo:sli_bad_events:rate<short> and slo:sli_events:rate<short> over the fastest tier's short
// window, slo:error_budget:remaining over the period (bad events over all events of the
// period, so every minute weighs by its traffic, and 1 while there was none),
// slo:error_budget:burn_rate over the fastest tier's long window, and the alerts
// SLO<name><suffix>.
local e = import '../lib/expr.libsonnet';
local t = import '../lib/test.libsonnet';
{
  // The SRE workbook's defaults for a 30-day period: page when 2 % of the budget burns in an
  // hour or 5 % in six hours, ticket when 10 % burns in a day or in three days.
  sloDefaults:: {
    period: '30d',
    // Runbook parts of the SLO's alerts.
    diagnosis:: [
      { check: 'Did a release, config change or driver rollout start shortly before the burn?', yes: 'Roll it back first, investigate after (compare canary and baseline with the model:*canary* rules).', no: '' },
      { check: 'Do GPU alerts fire for the GPUs behind the SLO (XID, ECC, throttling, NVLink)?', yes: "Follow the GPU alert's runbook; move the traffic or jobs off the bad GPUs.", no: '' },
      { check: 'Did load rise beyond the capacity (queue growing, KV cache full)?', yes: 'Scale out.', no: 'Escalate to the owning team with the burn-rate graphs.' },
    ],
    mitigation:: ['Roll back the latest change.', 'Move load away from failing GPUs or nodes.', 'Scale out if demand outgrew capacity.'],
    dashboards:: ['L1', 'L2'],
    errorRatio(w)::
      local slo = self;
      e.fill(|||
        ($(bad)) / $(all)
      |||, { bad: slo.badEvents(w), all: slo.events(w) }),
    alerts: {
      FastBurn: { severity: 'critical', 'for': '2m' },
      SlowBurn: { severity: 'warning', 'for': '15m' },
    },
    tiers: [
      { alert: 'FastBurn', factor: 14.4, long: '1h', short: '5m' },
      { alert: 'FastBurn', factor: 6, long: '6h', short: '30m' },
      { alert: 'SlowBurn', factor: 3, long: '1d', short: '2h' },
      { alert: 'SlowBurn', factor: 1, long: '3d', short: '6h' },
    ],
  },

  // The alerts of SLO n that a scenario failing a share `ratio` of its events throughout makes
  // fire, for a case's alsoFires on target: every window then reads that ratio, so each alert
  // with a tier whose factor times the budget is below it. (Other families' scenarios name
  // them from here, so that a team's objective or tiers decide, not the embedded catalog's.)
  sloAlertsFiring(n, ratio, target)::
    local s = $.slos[n];
    [
      t.also('SLO' + n + suffix, ratio, target=target)
      for suffix in std.objectFields(s.alerts)
      if std.length([tier for tier in s.tiers if tier.alert == suffix && ratio > tier.factor * budget(s)]) > 0
    ],

  local l = $.labels,
  local budget(s) = 1 - s.objective,
  // PromQL for the budget: "(1 - 0.99)" reads better than the float it computes to.
  local budgetExpr(s) = e.fill(|||
    (1 - $(objective))
  |||, { objective: std.toString(s.objective) }),
  local ratioRecord(w) = e.fill(|||
    slo:sli_error:ratio_rate$(window)
  |||, { window: w }),
  local shortest(s) = s.tiers[0].short,
  local badRecord(s) = e.fill(|||
    slo:sli_bad_events:rate$(window)
  |||, { window: shortest(s) }),
  local eventsRecord(s) = e.fill(|||
    slo:sli_events:rate$(window)
  |||, { window: shortest(s) }),
  local sloNames = std.objectFields($.slos),
  local windows(s) = std.set(std.flattenArrays([[tier.long, tier.short] for tier in s.tiers])),
  local selectSLO(name, rec) = e.fill(|||
    $(record){slo="$(slo)"}
  |||, { record: rec, slo: name }),
  // The SLO's recorded rec summed over a window.
  local sumOver(name, rec, w) = e.fill(|||
    sum_over_time($(series)[$(window)])
  |||, { series: selectSLO(name, rec), window: w }),
  local fastest(s) = s.tiers[0].long,

  // One rule per SLO and window, all recording the same metric told apart by the `slo` label:
  // one SLO's broken query never stops another's.
  local sloRecord(record, n, expr, tests=[]) = {
    [selectSLO(n, record)]: { record: record, labels: { slo: n }, family: 'slo', expr: expr, [if tests != [] then 'tests']: tests },
  },
  // The shortest window reads the raw series; every longer one sums the shortest window's
  // recorded bad and all events over its span (event-weighted, as the budget), so no rule
  // takes rate() of raw histograms over days every minute.
  local windowRatio(n, w) =
    local s = $.slos[n];
    if w == shortest(s) then s.errorRatio(w)
    else e.fill(|||
      $(bad) / ($(all) > 0)
    |||, { bad: sumOver(n, badRecord(s), w), all: sumOver(n, eventsRecord(s), w) }),
  local alertName(n, suffix) = 'SLO' + n + suffix,
  // The SLO n with its key, which its scenario's messages name it by.
  local named(n) = $.slos[n] { name:: n },
  local factors(s, suffix) = [tier.factor for tier in s.tiers if tier.alert == suffix],
  local sloAlert(n, suffix) =
    local s = named(n);
    local a = s.alerts[suffix];
    local threshold(tier) = e.fill(|||
      ($(factor) * $(budget))
    |||, { factor: std.toString(tier.factor), budget: budgetExpr(s) });
    local byText = std.join(' ', ['{{ $labels.' + b + ' }}' for b in s.by]);
    local others = [o for o in std.objectFields(s.alerts) if o != suffix];
    // Error ratios for the scenarios, from the tiers: above every tier of this alert, and
    // between this alert's tiers and the next faster alert's.
    local maxOf(xs) = std.foldl(std.max, xs, 0);
    local minOf(xs) = std.foldl(std.min, xs, 1e9);
    local mine = factors(s, suffix);
    local slower = std.flattenArrays([factors(s, o) for o in others if maxOf(factors(s, o)) < minOf(mine)]);
    local fires = std.min(0.999, 1.5 * maxOf(mine) * budget(s));
    local alsoFiring(sc) = [x for x in $.sloAlertsFiring(n, sc.value, sc.target) if x.alert != alertName(n, suffix)];
    // A latency SLO's scenarios play on its first engine's series, or on `engine`'s.
    local case(name, fires, bad, engine=null) =
      local sc = if engine == null then s.scenario(bad) else s.scenario(bad, engine=engine);
      t.case(name,
             fires,
             [],
             pod=false,
             gpus=sc.gpus,
             extra=sc.extra,
             value=if fires then sc.value else null,
             target=if fires then sc.target else null,
             alsoFires=(if bad == 'burst' then [] else alsoFiring(sc)) + std.get(sc, 'alsoFires', []));
    // The SLO's recorded rec for the dashboard's variables ($$(label) is the variable $<label>).
    local forDashboard(rec) = e.fill(|||
      $(record){slo="$(slo)", $(matchers)}
    |||, {
      record: rec,
      slo: n,
      matchers: std.join(', ', [e.fill(|||
        $(label)="$$(label)"
      |||, { label: b }) for b in s.by]),
    });
    {
      family: 'slo',
      severity: a.severity,
      runbook: {
        meaning: 'The SLO ' + n + ' (' + s.description + ') is burning its ' + e.percent(budget(s)) + ' % error budget at ' + std.join(' or ', [std.toString(f) + 'x' for f in mine]) + ' the rate that would last exactly ' + s.period + ', over both a long and a short window.',
        impact: if a.severity == 'critical' then 'Users see failures now; at this rate the whole budget for ' + s.period + ' is gone within days.' else 'A slow, steady burn: left alone it exhausts the budget before the period ends.',
        queries: [
          {
            title: "Error ratio over the alert's windows",
            expr: std.join(
              ' or ',
              [forDashboard(ratioRecord(w)) for w in std.set(std.flattenArrays([[tier.long, tier.short] for tier in s.tiers if tier.alert == suffix]))],
            ),
          },
          { title: 'Budget left for the period (1 = untouched, below 0 = overspent)', expr: forDashboard('slo:error_budget:remaining') },
          { title: 'Current burn rate', expr: forDashboard('slo:error_budget:burn_rate') },
          { title: 'GPU alerts firing in the same cluster', expr: e.fill(|||
            ALERTS{alertstate="firing", $(cluster)="$$(cluster)", $(team)="$(infra)"}
          |||, { cluster: l.cluster, team: l.team, infra: $.teams.infra }) },
        ],
        diagnosis: s.diagnosis,
        mitigation: s.mitigation,
        escalation: 'Team ' + s.team + ' owns the SLO; infrastructure on-call for GPU faults behind it.',
        dashboards: s.dashboards,
      },
      team: s.team,
      'for': a['for'],
      labels: { slo: n },
      identity: s.by,
      expr: std.join(' or ', [
        e.fill(|||
          ($(long) > $(threshold) and $(short) > $(threshold))
        |||, { long: selectSLO(n, ratioRecord(tier.long)), short: selectSLO(n, ratioRecord(tier.short)), threshold: threshold(tier) })
        for tier in s.tiers
        if tier.alert == suffix
      ]),
      summary: 'SLO ' + n + ' is burning its error budget ' + (if a.severity == 'critical' then 'fast.' else 'steadily.'),
      description: 'SLO ' + n + ' (' + s.description + ') for ' + byText + ': {{ $value | humanizePercentage }} of events failed against a budget of ' + e.percent(budget(s)) + ' % over ' + s.period + ' (this alert fires at ' + std.join(
        ' and ',
        [std.toString(f) + 'x' for f in mine],
      ) + ' the sustainable burn rate).',
      tests: [
        case('burning faster than every tier', true, fires),
        case('within budget', false, 0.2 * budget(s)),
        case('a one-minute burst', false, 'burst'),
      ] + (
        if slower == [] then [] else [
          case('burning only as fast as a slower alert fires', false, (maxOf(slower) + minOf(mine)) / 2 * budget(s)),
        ]
      ) + [
        // Every other engine served, on series shaped as it writes them.
        c
        for engine in std.get(s, 'engines', [])[1:]
        for c in [
          case('burning faster than every tier on ' + $.inference.profiles[engine].title, true, fires, engine),
          case('within budget on ' + $.inference.profiles[engine].title, false, 0.2 * budget(s), engine),
        ]
      ],
    },

  records+: std.foldl(function(acc, o) acc + o, [
    sloRecord(ratioRecord(w), n, windowRatio(n, w))
    for n in sloNames
    for w in windows($.slos[n])
  ], {}) + std.foldl(function(acc, o) acc + o, [
    // Cases: the SLO's scenario failing three budgets' worth of events.
    local sc = named(n).scenario(3 * budget($.slos[n]));
    // (On node-a: a series the scenario puts on its own host, t.scenarioHost, is node-a's here.)
    local onNodeA(labels) = { [k]: if labels[k] == t.scenarioHost then 'node-a' else labels[k] for k in std.objectFields(labels) };
    local input = [x { labels: onNodeA(x.labels) { [l.cluster]: 'prod' } } for x in sc.extra]
                  + [t.series($.exporter.healthField, '60x60', t.gpu(l, 'node-a', i)) for i in std.range(0, sc.gpus - 1)];
    local labels = { [l.cluster]: 'prod', slo: n } + sc.target;
    local check(record, what, value) = [t.recordCase(what, input, [t.sample(labels, t.round3(value))], 'round(' + selectSLO(n, record) + ', 0.001)')];
    sloRecord('slo:objective:ratio',
              n,
              e.fill(|||
                vector($(objective))
              |||, { objective: std.toString($.slos[n].objective) }),
              [t.recordCase('the objective', [], [t.sample({ slo: n }, $.slos[n].objective)], selectSLO(n, 'slo:objective:ratio'))])
    + sloRecord(badRecord($.slos[n]), n, $.slos[n].badEvents(shortest($.slos[n])))
    + sloRecord(eventsRecord($.slos[n]), n, $.slos[n].events(shortest($.slos[n])))
    + sloRecord('slo:error_budget:remaining',
                n,
                local s = $.slos[n];
                e.fill(|||
                  1 - ($(bad) / ($(all) > 0)) / $(budget) or 0 * $(all) + 1
                |||, { bad: sumOver(n, badRecord(s), s.period), all: sumOver(n, eventsRecord(s), s.period), budget: budgetExpr(s) }),
                check('slo:error_budget:remaining', 'failing three budgets: two overspent', 1 - sc.value / budget($.slos[n]))
                + (if std.objectHasAll($.slos[n], 'requestBased') then [
                     // Traffic stops for the last half hour: the minutes without events weigh nothing.
                     local quiet = named(n).scenario(3 * budget($.slos[n]), 30);
                     local quietInput = [x { labels+: { [l.cluster]: 'prod' } } for x in quiet.extra];
                     t.recordCase('no traffic for the last half hour', quietInput, [t.sample(labels, t.round3(1 - quiet.value / budget($.slos[n])))], 'round(' + selectSLO(n, 'slo:error_budget:remaining') + ', 0.001)'),
                   ] else []))
    + sloRecord('slo:error_budget:burn_rate',
                n,
                e.fill(|||
                  $(ratio) / $(budget)
                |||, { ratio: selectSLO(n, ratioRecord(fastest($.slos[n]))), budget: budgetExpr($.slos[n]) }),
                check('slo:error_budget:burn_rate', 'failing three budgets: burning about 3x', sc.value / budget($.slos[n]))
                + (if std.get($.slos[n], 'deprecated') != null then [
                     // An older server exports the histogram under its deprecated name only.
                     local s = $.slos[n];
                     local older = [x { metric: std.strReplace(x.metric, s.metric, s.deprecated) } for x in input];
                     t.recordCase('an older server, under the deprecated name, burning about 3x', older, [t.sample(labels, t.round3(sc.value / budget(s)))], 'round(' + selectSLO(n, 'slo:error_budget:burn_rate') + ', 0.001)'),
                   ] else []))
    for n in sloNames
  ], {}),

  alerts+: {
    [alertName(n, suffix)]: sloAlert(n, suffix)
    for n in sloNames
    for suffix in std.objectFields($.slos[n].alerts)
  },
}
