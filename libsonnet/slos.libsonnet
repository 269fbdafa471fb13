// Service level objectives and their multi-window multi-burn-rate alerts.
//
// An SLO: team (owner, routing), objective (share of good events), period, description,
// `by` (the labels one SLO series is kept per), alerts (by name suffix: severity, for), tiers
// (burn-rate factor with a long and a short window, each belonging to one alert), and two
// hidden functions: badEvents(window) and events(window), the PromQL rates of bad and of all
// events over a window (GPUs for availability: GPU-seconds per second), errorRatio(window),
// their share, and scenario(bad, idleAfter) for the generated promtool cases: series in which
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
local e = import 'lib/expr.libsonnet';
local names = import 'lib/names.libsonnet';
local t = import 'lib/test.libsonnet';
{
  local l = $.labels,
  local inf = $.inference,

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

  // An inference SLO on a latency histogram of the engines served (inference.read of
  // `quantity`): good requests finish within `seconds`, which must be a bound of every
  // engine's ladder.
  latencySLO(quantity, seconds, what):: $.sloDefaults {
    section: 'inference',
    seconds:: seconds,
    team: $.teams.inference,
    requestBased:: true,
    objective: 0.99,
    description: e.percent(self.objective) + ' % of ' + what + ' within ' + e.num(seconds) + ' s',
    by: [l.cluster, 'namespace', $.inference.modelLabel],
    local read = $.inference.read(quantity),
    // The engines whose scenarios the SLO's alerts play, the first also its record cases.
    engines:: $.inference.having(quantity),
    local first = $.inference.profiles[self.engines[0]][quantity],
    // The first engine's histogram, and its name in older engine releases (read where a
    // server does not export the current one), for a record case of an older server.
    metric:: first.name,
    deprecated:: std.get(first, 'deprecated'),
    badEvents(w):: $.histograms.above(read, seconds, self.by, w),
    events(w):: $.histograms.count(read, self.by, w),
    scenario(bad, idleAfter=60, engine=self.engines[0]):: {
      local p = $.inference.profiles[engine],
      local metric = p[quantity].name,
      local server = $.inference.scenarioServer(engine, serving=true),
      target: { namespace: 'inference', [$.inference.modelLabel]: 'llama-3-8b' },
      gpus: 1,
      value: if bad == 'burst' then null else bad,
      // 100 requests a minute, each taking the threshold (good) or twice it (bad), in the
      // buckets of the engine's own ladder (its profile's buckets) where the threshold is one
      // of its bounds, as the engine exposes them, else of the threshold alone; the classic
      // bucket of a whole number is spelt as the engine's client does (1.0 in Python, 1 in
      // Rust), which the matcher must take both of.
      local known = p[quantity].buckets,
      local ladder = if std.member(known, seconds) then known else [seconds],
      local bucketOf(v) = std.length([b for b in ladder if b < v]),
      local request(good, bad) = [
        [(if i == bucketOf(seconds) then good else 0) + (if i == bucketOf(2 * seconds) then bad else 0) for i in std.range(0, std.length(ladder))],
        seconds * (good + 2 * bad),
      ],
      extra: $.histograms.series(metric, server, ladder, if bad == 'burst' then [[59] + request(100, 0), [1] + request(0, 100)]
      else [[std.min(idleAfter, 60)] + request(100 * (1 - bad), 100 * bad)] + (if idleAfter < 60 then [[60 - idleAfter] + request(0, 0)] else []), p.wholeBound),
    },
  },

  slos: {
    [if $.inference.having('timeToFirstToken') != [] then 'InferenceTTFT']: $.latencySLO('timeToFirstToken', $.thresholds.ttftSeconds, 'requests get their first token'),
    [if $.inference.having('requestLatency') != [] then 'InferenceLatency']: $.latencySLO('requestLatency', $.thresholds.e2eLatencySeconds, 'requests complete'),

    // The requests the servers admitted that failed on their side, across the engines served
    // that count their requests (inference.answering). Requests an engine refused at
    // admission on purpose are neither good nor bad here: GPUInferenceRequestsShed tickets
    // them.
    [if $.inference.answering != [] then 'InferenceErrors']: $.sloDefaults {
      section: 'inference',
      team: $.teams.inference,
      requestBased:: true,
      objective: 0.995,
      description: e.percent(self.objective) + ' % of admitted inference requests succeed (no server error)',
      by: [l.cluster, 'namespace'],
      engines:: $.inference.answering,
      badEvents(w):: inf.requestRate(['failed'], self.engines, self.by, w),
      events(w):: inf.requestRate(['served'], self.engines, self.by, w),
      // 100 admitted requests a minute, a share `bad` of them failing, on the engine's own
      // counters; an engine that tells rejections apart also refuses 100 a minute throughout
      // (but in a burst).
      scenario(bad, idleAfter=60, engine=self.engines[0]):: {
        local p = $.inference.profiles[engine],
        local server = $.inference.scenarioServer(engine),
        local series(o, values) = t.series(o.name, values, server + o.labels),
        target: { namespace: 'inference' },
        gpus: 1,
        value: if bad == 'burst' then null else bad,
        extra: [
          series(p.requests.example.ok, if bad == 'burst' then '0+100x59 5900' else counter(100 * (1 - bad), idleAfter)),
          series(p.requests.example.failed, if bad == 'burst' then '0x59 100' else counter(100 * bad, idleAfter)),
        ] + (if shedding then [series(p.requests.example.rejected, counter(100, idleAfter))] else []),
        // Refusing as many requests as it admits, the engine's servers shed half of them (not
        // in a burst, whose last minute's rates are extrapolated apart).
        local shedding = p.requests.rejected != [] && bad != 'burst',
        alsoFires: if shedding then [t.also('GPUInferenceRequestsShed', 0.5, target=self.target)] else [],
      },
    },

    // The share of GPUs that are not healthy: capacity (kube-state-metrics) minus the GPUs that
    // report, with no fatal XID held, no uncorrectable ECC error in the event window and spare
    // rows left. Capacity, not allocatable: the device plugin takes unhealthy GPUs out of
    // allocatable, which would hide exactly the failures this SLO counts.
    GPUAvailability: $.sloDefaults {
      team: $.teams.infra,
      diagnosis:: [
        { check: 'Do hardware alerts (GPUFellOffBus, GPUXidFatal, GPUEccDoubleBit, GPUSeriesMissing) fire in the cluster?', yes: 'Follow their runbooks; drain and repair the GPUs.', no: '' },
        { check: 'Do GPUs of nodes with a running exporter stop reporting (GPUSeriesMissing, DCGMExporterMissingOnNode)?', yes: 'They count as unavailable: find why their series stopped.', no: "Capacity grew without GPUs reporting: check new nodes' exporters. (A node whose exporter is down is blind, not down: its GPUs leave the SLO's capacity while DCGMExporterDown fires.)" },
      ],
      mitigation:: ['Drain and repair the unhealthy GPUs; RMA the repeat offenders.', 'Start exporters on nodes that have GPUs but none.'],
      dashboards:: ['L1', 'L2', 'L3'],
      objective: 0.99,
      description: e.percent(self.objective) + ' % of GPU capacity is healthy',
      by: [l.cluster],
      errorRatio(w):: e.fill(|||
        avg_over_time(cluster:gpu_unavailable:ratio[$(window)])
      |||, { window: w }),
      // GPU-time: unavailable GPUs and capacity, each averaged over the window.
      badEvents(w):: e.fill(|||
        avg_over_time(cluster:gpu_unavailable:count[$(window)])
      |||, { window: w }),
      events(w):: e.fill(|||
        avg_over_time(cluster:kube_gpu_capacity_seen:sum[$(window)])
      |||, { window: w }),
      // Capacity 25 GPUs; the GPUs that do not report are unavailable. A burst is a new node
      // whose 15 GPUs the exporter has not reported for the last 3 minutes.
      scenario(bad, idleAfter=60)::
        local capacity = 25;
        local missing = if bad == 'burst' then 0 else std.round(bad * capacity);
        {
          target: {},
          gpus: capacity - missing,
          value: if bad == 'burst' then null else missing / capacity,
          extra: $.kubernetes.capacitySeries(t.scenarioHost, if bad == 'burst' then [[25, 57], [40, 3]] else [[capacity, 60]]),
        },
    },
  },

  // A counter rising by perMinute a minute, flat after idleAfter minutes (traffic stopped).
  local counter(perMinute, idleAfter) =
    if idleAfter >= 60 then '0+' + perMinute + 'x60'
    else '0+' + perMinute + 'x' + idleAfter + ' ' + perMinute * idleAfter + 'x' + (60 - idleAfter),

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
  records+: std.foldl(function(acc, o) acc + o, [
    sloRecord(ratioRecord(w), n, windowRatio(n, w))
    for n in sloNames
    for w in windows($.slos[n])
  ], {}) + std.foldl(function(acc, o) acc + o, [
    // Cases: the SLO's scenario failing three budgets' worth of events.
    local sc = $.slos[n].scenario(3 * budget($.slos[n]));
    local input = [x { labels+: { [l.cluster]: 'prod' } } for x in sc.extra]
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
                     local quiet = $.slos[n].scenario(3 * budget($.slos[n]), 30);
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
  ], {}) + {
    // The device plugin's capacity; a DRA node has none, and its GPUs are those its
    // ResourceSlices publish (the allocation group's node:kube_gpu_allocatable:sum).
    local devicePlugin = e.fill(|||
      sum by ($(cluster), $(node)) (kube_node_status_capacity{job="$(job)", resource=~"$(resources)"})
    |||, { cluster: l.cluster, node: l.node, job: $.kubeStateMetrics.job, resources: $.kubeStateMetrics.gpuResources }),
    local k = $.kubernetes,
    // DRA nodes' GPUs: the allocatable GPUs gpuobs derives for the nodes without the device
    // plugin's.
    local draNodes = e.fill(|||
      node:kube_gpu_allocatable:sum unless on ($(cluster), $(node)) kube_node_status_allocatable{job="$(job)", resource=~"$(resources)"}
    |||, { cluster: l.cluster, node: l.node, job: $.kubeStateMetrics.job, resources: $.kubeStateMetrics.gpuResources }),
    // Each node's GPU capacity, by cluster and node, as the allocation mode reports it.
    local capacityByNode = if !k.devicePlugin then 'node:kube_gpu_allocatable:sum' else std.join(' or ', [devicePlugin] + (if k.dra then [draNodes] else [])),
    'cluster:kube_gpu_capacity:sum': {
      family: 'slo',
      // (In a mixed fleet, the nodes the device plugin offers GPUs on count their capacity only.)
      // (Without the device plugin, capacity is what gpuobs derives as the cluster's allocatable
      // GPUs: read, not summed again.)
      expr: if !k.devicePlugin then 'cluster:kube_gpu_allocatable:sum' else e.fill(|||
        sum by ($(cluster)) ($(capacity))
      |||, { cluster: l.cluster, capacity: capacityByNode }),
    } + (if !k.dra then {} else {
           comments: [
             'Reads the allocation group: at most one evaluation interval behind; a node publishes GPUs when it joins or a GPU fails.',
             'pint disable rule/dependency',
           ],
         }),
    // A fatal XID makes a GPU unhealthy for the event window, read from the XID event rule:
    // the last-XID gauge holds the code until the exporter restarts, so a repaired GPU would
    // burn budget for ever.
    'cluster:gpu_healthy:count': {
      family: 'slo',
      comments: [
        'Reads the XID event rule of another group: at most one evaluation interval behind, against an event window of ' + $.windows.event + '.',
        'pint disable rule/dependency',
      ],
      local fatal = $.xid.fatal + $.xid.fellOffBus,
      // Slots, as capacity counts them: each MIG device of a GPU, or the whole GPU, times the
      // device plugin's time-slicing replicas; on a DRA fleet, GPUs.
      local replicas = $.sharing.replicas,
      local onlyDRA = !$.kubernetes.devicePlugin,
      // GPUs with a fatal XID in the event window.
      local fatalXid = e.fill(|||
        $(xidEvents){xid=~"$(codes)"}
      |||, { xidEvents: names.xidEvents($.windows.event), codes: std.join('|', [std.toString(c) for c in fatal]) }),
      local slots = e.fill(|||
        count by ($(cluster)) (group by ($(slot)) ($(health)) unless on ($(gpuJoin)) ($(fatalXid)) unless on ($(gpuJoin)) (increase(DCGM_FI_DEV_ECC_DBE_VOL_TOTAL[$(window)]) > 0) unless on ($(gpuJoin)) (DCGM_FI_DEV_ROW_REMAP_FAILURE > 0))
      |||, {
        cluster: l.cluster,
        slot: std.join(', ', $.identity.gpuJoin + (if onlyDRA then [] else [l.migInstance])),
        health: $.exporter.health(),
        gpuJoin: std.join(', ', $.identity.gpuJoin),
        fatalXid: fatalXid,
        window: $.windows.event,
      }),
      expr: if replicas == 1 then slots else e.fill(|||
        $(replicas) * $(slots)
      |||, { replicas: std.toString(replicas), slots: slots }),
      // Six GPUs, three healthy: one reported fatal XID 48 in the event window, one an
      // application XID 13 (healthy), one logged a double-bit ECC error, one ran out of spare
      // rows, one was repaired after a fatal XID (the gauge still holds it), and a MIG GPU
      // with two instances counts two slots, as capacity does.
      local g(i, mig=null) = t.gpu(l, 'node-a', i, mig=mig),
      // (GPU 1 sends only the last health field, as a vGPU guest sends no temperature.)
      local fields = $.exporter.healthFields,
      local healthy = [t.series(if i == 1 then fields[std.length(fields) - 1] else fields[0], '60x60', g(i)) for i in [0, 1, 2, 3, 4]]
                      + [t.series($.exporter.healthField, '60x60', g(5, mig=m)) for m in [1, 2]],
      tests: [t.recordCase('fatal XID, double-bit ECC and remap failure are unhealthy, a GPU without temperature healthy', healthy + [
        t.series('DCGM_FI_DEV_XID_ERRORS', '_x55 48x5', g(0) { err_code: '48' }),
        t.series('DCGM_FI_DEV_XID_ERRORS', '48x60', g(4) { err_code: '48' }),
        t.series('DCGM_FI_DEV_XID_ERRORS', '13x60', g(1)),
        t.series('DCGM_FI_DEV_ECC_DBE_VOL_TOTAL', '0x55 1x5', g(2)),
        t.series('DCGM_FI_DEV_ROW_REMAP_FAILURE', '1x60', g(3)),
        t.series('DCGM_FI_DEV_XID_ERRORS', '0x60', g(5, mig=1)),
        t.series('DCGM_FI_DEV_XID_ERRORS', '0x60', g(5, mig=2)),
      ], [t.sample({ [l.cluster]: 'prod' }, if onlyDRA then 3 else 4 * replicas)], 'cluster:gpu_healthy:count')],
    },
    // Blind is not down: the capacity of nodes whose exporter target is down (up == 0, its
    // host from the instance-to-host map of the last hour), whose GPUs nobody can see. The
    // SLO counts GPUs known down; DCGMExporterDown tells of the blind ones.
    'cluster:kube_gpu_capacity_blind:sum': {
      family: 'slo',
      comments: [
        "Reads the exporter group's host map: at most one evaluation interval behind, against its window of " + $.windows.missing + '.',
        'pint disable rule/dependency',
      ],
      expr: e.fill(|||
        sum by ($(cluster)) ($(capacity) and on ($(cluster), $(host)) ((up{job="$(job)"} == 0) * on ($(cluster), instance) group_left ($(host)) topk by ($(cluster), instance) (1, last_over_time(instance:dcgm_exporter_host:group[$(window)]))))
      |||, { cluster: l.cluster, host: l.host, capacity: e.asHost(l, capacityByNode), job: $.exporter.job, window: $.windows.missing }),
      // Three nodes of four GPUs: node-b's exporter is down for the last 20 minutes (blind),
      // node-c's GPUs stopped reporting while its exporter is up (down, not blind).
      local gpus(node, values) = [t.series($.exporter.healthField, values, t.gpu(l, node, i)) for i in std.range(0, 3)],
      local up(node, values) = t.series('up', values, { [l.cluster]: 'prod', job: $.exporter.job, instance: node + ':9400' }),
      tests: [t.recordCase('one exporter down, one node silent', gpus('node-a', '60x60') + gpus('node-b', '60x40 _x20') + gpus('node-c', '60x40 _x20') + [
        up('node-a', '1x60'),
        up('node-b', '1x40 0x20'),
        up('node-c', '1x60'),
      ] + std.flattenArrays([$.kubernetes.capacitySeries(n, [[4, 60]], { [l.cluster]: 'prod' }) for n in ['node-a', 'node-b', 'node-c']]), [t.sample({ [l.cluster]: 'prod' }, if k.devicePlugin then 4 * $.sharing.replicas else 4)], 'cluster:kube_gpu_capacity_blind:sum')],
    },
    // The capacity whose GPUs are seen: all of it but the blind nodes'.
    'cluster:kube_gpu_capacity_seen:sum': {
      family: 'slo',
      expr: 'cluster:kube_gpu_capacity:sum - (cluster:kube_gpu_capacity_blind:sum or cluster:kube_gpu_capacity:sum * 0)',
    },
    'cluster:gpu_unavailable:count': {
      family: 'slo',
      expr: 'clamp_min(cluster:kube_gpu_capacity_seen:sum - (cluster:gpu_healthy:count or cluster:kube_gpu_capacity:sum * 0), 0)',
    },
    // Of the capacity seen: a cluster whose every exporter is down has none, and no ratio.
    'cluster:gpu_unavailable:ratio': {
      family: 'slo',
      expr: 'cluster:gpu_unavailable:count / cluster:kube_gpu_capacity_seen:sum',
      // Two nodes of two GPUs at 7 MIG devices each: under the single strategy nvidia.com/gpu
      // counts the 14 devices, under mixed they are nvidia.com/mig-1g.10gb; one device of the
      // mixed node does not report: 1 of 28 slots is unavailable. Time-slicing replicates every
      // slot in capacity and in the healthy count alike.
      local nodeCapacity(node, resource, n) = t.series('kube_node_status_capacity', (n * $.sharing.replicas) + 'x60', e.ksm($.kubeStateMetrics.job, { [l.cluster]: 'prod', node: node, resource: resource, unit: 'integer' })),
      local slots(node, missing=null) = [t.series($.exporter.healthField, '60x60', t.gpu(l, node, i, mig=m)) for i in [0, 1] for m in std.range(1, 7) if [i, m] != missing],
      // On a DRA fleet, two nodes publishing two GPUs each, one GPU of which does not report
      // (the other MIG GPU reports one instance of two: it counts as a GPU).
      local published(node) = $.kubernetes.capacitySeries(node, [[2, 60]], { [l.cluster]: 'prod' }),
      tests: [if !$.kubernetes.devicePlugin then
        t.recordCase('two DRA nodes, one GPU silent', [s for s in slots('node-a') if s.labels[l.gpu] == '0'] + [s for s in slots('node-b') if s.labels[l.migInstance] == '1'] + published('node-a') + published('node-b'), [t.sample({ [l.cluster]: 'prod' }, 0.25)], 'round(cluster:gpu_unavailable:ratio, 0.001)')
      else
        t.recordCase('MIG nodes under the single and the mixed strategy', slots('single-node') + slots('mixed-node', [1, 7]) + [
          nodeCapacity('single-node', $.kubeStateMetrics.gpuResource, 14),
          nodeCapacity('mixed-node', $.kubeStateMetrics.gpuResource, 0),
          nodeCapacity('mixed-node', 'nvidia_com_mig_1g_10gb', 14),
        ], [t.sample({ [l.cluster]: 'prod' }, t.round3(1 / 28))], 'round(cluster:gpu_unavailable:ratio, 0.001)')],
    },
  },

  alerts+: {
    [alertName(n, suffix)]: sloAlert(n, suffix)
    for n in sloNames
    for suffix in std.objectFields($.slos[n].alerts)
  },

  local alertName(n, suffix) = 'SLO' + n + suffix,
  local factors(s, suffix) = [tier.factor for tier in s.tiers if tier.alert == suffix],
  local sloAlert(n, suffix) =
    local s = $.slos[n];
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
    local alsoFiring(sc) = [
      t.also(alertName(n, o), sc.value, target=sc.target)
      for o in others
      if std.length([f for f in factors(s, o) if sc.value > f * budget(s)]) > 0
    ];
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
          { title: "Error ratio over the alert's windows", expr: std.join(' or ', [forDashboard(ratioRecord(w)) for w in std.set(std.flattenArrays([[tier.long, tier.short] for tier in s.tiers if tier.alert == suffix]))]) },
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
      description: 'SLO ' + n + ' (' + s.description + ') for ' + byText + ': {{ $value | humanizePercentage }} of events failed against a budget of ' + e.percent(budget(s)) + ' % over ' + s.period + ' (this alert fires at ' + std.join(' and ', [std.toString(f) + 'x' for f in mine]) + ' the sustainable burn rate).',
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
}
