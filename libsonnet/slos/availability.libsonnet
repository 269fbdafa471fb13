// The GPU availability SLO: the share of the GPUs in capacity that report and are healthy,
// from the capacity and health records below.
local e = import '../lib/expr.libsonnet';
local names = import '../lib/names.libsonnet';
local t = import '../lib/test.libsonnet';
{
  local l = $.labels,

  // How many GPUs of what capacity go missing to show an unavailable share `ratio` to the burn-
  // rate tiers of the SLO slo: a share that fires the tiers `ratio` fires, 2 % clear of every
  // threshold (averaged over a window, a share on a threshold may fall either side of it). 25 GPUs
  // of capacity where a whole number of them does; else the fewest missing of the capacity that
  // comes nearest the ratio, moved 10 % off a threshold it is on, to its own side.
  local sizing(slo, ratio) =
    local thresholds = [tier.factor * (1 - slo.objective) for tier in slo.tiers];
    local near(x, threshold) = x > 0.98 * threshold && x < 1.02 * threshold;
    local keeps(size) =
      local shown = size.missing / size.capacity;
      size.missing < size.capacity && std.length([x for x in thresholds if near(shown, x) || (shown > x) != (ratio > x)]) == 0;
    local first = { capacity: 25, missing: std.min(self.capacity - 1, std.round(ratio * self.capacity)) };
    local on = [x for x in thresholds if near(ratio, x)];
    local aim = if on == [] then ratio else if ratio > on[0] then 1.1 * on[0] else 0.9 * on[0];
    // The fewest missing from `missing` on, up to 32, of the capacity nearest the aim.
    local fewest(missing) =
      local size = { capacity: std.max(missing + 1, std.round(missing / aim)), missing: missing };
      if missing > 32 then
        error 'slos.' + slo.name + '.tiers: too close together for a generated test to tell them apart\n(factors ' + std.join(', ', [e.num(tier.factor) for tier in slo.tiers]) + '): move their factors further apart.'
      else if keeps(size) then size
      else fewest(missing + 1);
    local size = if keeps(first) then first else fewest(1);
    if size.capacity > maxGPUs then
      error 'slos.' + slo.name + '.objective: ' + e.num(slo.objective) + ' is too strict for its generated tests:\nto tell its tiers apart, one takes ' + size.capacity + ' GPUs, and a test holds at most ' + maxGPUs + '. Loosen the objective.'
    else size,
  // The most GPUs a scenario takes: an alert test's GPUs share promtool's limit of samples (the
  // promtool test generator holds every case to the same bound, maxScenarioGPUs;
  // TestGPUAvailabilityRefusesWhatItsTestsCannotShow fails where the two differ).
  local maxGPUs = 512,

  slos+: {
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
      // Capacity 25 GPUs, of which those that do not report are unavailable (or as many as
      // sizing takes to show `bad`). A burst is a new node whose 15 GPUs the exporter has not
      // reported for the last 3 minutes.
      scenario(bad, idleAfter=60)::
        local size = if bad == 'burst' then { capacity: 25, missing: 0 } else sizing(self, bad);
        local missing = size.missing;
        {
          target: {},
          gpus: size.capacity - missing,
          value: if bad == 'burst' then null else missing / size.capacity,
          extra: $.kubernetes.capacitySeries(t.scenarioHost, if bad == 'burst' then [[25, 57], [40, 3]] else [[size.capacity, 60]]),
          // On Slurm, the node lends more GPUs than its exporter reports.
          [if $.scheduler == 'slurm' && bad != 'burst' && missing > 0 then 'alsoFires']: [t.also('GPUSlurmNodeGPUsMissing', missing, target={ [$.labels.host]: t.scenarioHost })],
        },
    },
  },

  records+: {
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
      ] + std.flattenArrays(
        [$.kubernetes.capacitySeries(n, [[4, 60]], { [l.cluster]: 'prod' }) for n in ['node-a', 'node-b', 'node-c']],
      ), [t.sample({ [l.cluster]: 'prod' }, if k.devicePlugin then 4 * $.sharing.replicas else 4)], 'cluster:kube_gpu_capacity_blind:sum')],
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
      local nodeCapacity(node, resource, n) = t.series(
        'kube_node_status_capacity',
        (n * $.sharing.replicas) + 'x60',
        e.ksm($.kubeStateMetrics.job, { [l.cluster]: 'prod', node: node, resource: resource, unit: 'integer' }),
      ),
      local slots(node, missing=null) = [
        t.series($.exporter.healthField, '60x60', t.gpu(l, node, i, mig=m))
        for i in [0, 1]
        for m in std.range(1, 7)
        if [i, m] != missing
      ],
      // On a DRA fleet, two nodes publishing two GPUs each, one GPU of which does not report
      // (the other MIG GPU reports one instance of two: it counts as a GPU).
      local published(node) = $.kubernetes.capacitySeries(node, [[2, 60]], { [l.cluster]: 'prod' }),
      tests: [if !$.kubernetes.devicePlugin then
        t.recordCase(
          'two DRA nodes, one GPU silent',
          [s for s in slots('node-a') if s.labels[l.gpu] == '0'] + [s for s in slots('node-b') if s.labels[l.migInstance] == '1'] + published('node-a') + published('node-b'),
          [t.sample({ [l.cluster]: 'prod' }, 0.25)],
          'round(cluster:gpu_unavailable:ratio, 0.001)',
        )
      else
        t.recordCase('MIG nodes under the single and the mixed strategy', slots('single-node') + slots('mixed-node', [1, 7]) + [
          nodeCapacity('single-node', $.kubeStateMetrics.gpuResource, 14),
          nodeCapacity('mixed-node', $.kubeStateMetrics.gpuResource, 0),
          nodeCapacity('mixed-node', 'nvidia_com_mig_1g_10gb', 14),
        ], [t.sample({ [l.cluster]: 'prod' }, t.round3(1 / 28))], 'round(cluster:gpu_unavailable:ratio, 0.001)')],
    },
  },
}
