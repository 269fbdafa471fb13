// Cost: GPU time allocated and used by namespace and team, priced per SKU.
//
// GPUs count by share: a whole GPU is 1, a MIG instance the weight of its profile (its compute
// slices over the GPU's: 3g.40gb is 3/7; sharing.migProfileWeights, 1/n of the GPU for a
// profile the table lacks), and the pods that share one GPU or instance (time-slicing, MPS,
// dcgm-exporter's virtual GPUs) split its share evenly. "Used" weighs each share by its graphics-engine
// activity (reported per MIG instance). Rates are per hour: namespace:gpu_allocated:sum is
// GPU-hours allocated per hour, and *_dollars_per_hour are dollars per hour; the :sum1d
// records are GPU-hours over the last day: each sample of the per-hour record stands for one
// evaluation interval, so a namespace that held GPUs for an hour of the day counts that hour.
// GPUs of SKUs missing from the price table are recorded (cluster:gpu_unpriced:sum) and raise
// an info alert: they would cost nothing in chargeback.
//
// On Slurm (scheduler slurm) the holder charged is a job, not a namespace: its share of each GPU
// its mapping lists (slurm/jobs.libsonnet: a GPU of two jobs is half of each), priced by the
// GPU's SKU; users and accounts are charged in slurm/jobs.libsonnet.
local e = import 'lib/expr.libsonnet';
local names = import 'lib/names.libsonnet';
local t = import 'lib/test.libsonnet';
{
  // The namespace labels that name a namespace's team, for chargeback by team.
  metrics+: if $.scheduler == 'slurm' then {} else {
    kube_namespace_labels: { section: 'cost', type: 'gauge', labels: [$.labels.cluster, 'job', 'instance', 'namespace', $.cost.teamLabel] },
  },

  cost: {
    currency: 'USD',
    // $/GPU-hour by modelName as the exporter reports it: list prices of on-demand cloud
    // GPUs as a starting point; put your own (amortised or contracted) prices here.
    gpuHourly: {
      'NVIDIA A100-SXM4-40GB': 1.8,
      'NVIDIA A100-SXM4-80GB': 2.2,
      'NVIDIA H100 80GB HBM3': 3.5,
      'NVIDIA H200': 4.5,
      'NVIDIA L4': 0.8,
      'NVIDIA L40S': 1.6,
    },
    // kube_namespace_labels label that names the team owning a namespace (kube-state-metrics
    // must allow-list it: --metric-labels-allowlist=namespaces=[team]).
    teamLabel: 'label_team',
  },

  local l = $.labels,
  local ns = l.namespace,
  local slurm = $.scheduler == 'slurm',
  // Who is charged for the GPUs it holds, and the records of what it holds and uses by SKU: a
  // namespace (its pods' shares), or a Slurm job.
  local holder = if slurm then { level: 'job', label: l.job, allocated: names.jobGPUs, used: names.jobGPUsUsed }
  else { level: 'namespace', label: ns, allocated: 'namespace:gpu_allocated:sum', used: 'namespace:gpu_used:sum' },
  local costRecord = e.fill('$(level):gpu_cost_dollars_per_hour:sum', holder),
  local idleCostRecord = e.fill('$(level):gpu_idle_cost_dollars_per_hour:sum', holder),
  local id = $.identity.alert,
  local perNamespace = [l.cluster, ns, l.modelName],
  local h = $.exporter.healthField,
  local price(sku) = $.cost.gpuHourly[sku],
  local skus = std.objectFields($.cost.gpuHourly),

  // Inputs of the cases: an H100 held by namespace research (engine 50 % active), an A100 of
  // team-b's namespace serving (25 % active), and an H100 split in two MIG instances, one
  // held by research (50 % active), one idle and unallocated: its series carry the
  // exporter target's own pod, as with honorLabels: true, which bills no namespace.
  local h100 = 'NVIDIA H100 80GB HBM3',
  local a100 = 'NVIDIA A100-SXM4-80GB',
  local gpu(host, index, sku, pod=null, mig=null) = t.gpu(l, host, index, sku, pod, mig),
  local entities = [
    [gpu('node-a', 0, h100, ['research', 'train-0']), 0.5],
    [gpu('node-a', 1, a100, ['serving', 'llm-0']), 0.25],
    [gpu('node-b', 0, h100, ['research', 'train-1'], 1), 0.5],
    [gpu('node-b', 0, h100, null, 2) + exporterPod, 0],
  ],
  local exporterPod = $.exporter.targetPod('node-b'),
  // On Slurm: research's job on node-a's H100, serving's on its A100, and node-b's H100 listed
  // for two jobs, research and eval (the exporter sends its series once per job), 50 % active.
  local ofJob(g, job) = g { [l.job]: job },
  local jobEntities = [
    [ofJob(gpu('node-a', 0, h100), 'research'), 0.5],
    [ofJob(gpu('node-a', 1, a100), 'serving'), 0.25],
    [ofJob(gpu('node-b', 0, h100), 'research'), 0.5],
    [ofJob(gpu('node-b', 0, h100), 'eval'), 0.5],
  ],
  local input = std.flattenArrays([
    [t.series(h, '65x60', x[0]), t.series('DCGM_FI_PROF_GR_ENGINE_ACTIVE', x[1] + 'x60', x[0])]
    for x in (if slurm then jobEntities else entities)
  ]) + (if slurm then [] else [
          t.series('up', '1x60', { [l.cluster]: 'prod', job: $.exporter.job, instance: 'node-b:9400' } + exporterPod),
          t.series('kube_namespace_labels', '1x60', e.ksm($.kubeStateMetrics.job, { [l.cluster]: 'prod', namespace: 'research', [$.cost.teamLabel]: 'team-a' })),
          t.series('kube_namespace_labels', '1x60', e.ksm($.kubeStateMetrics.job, { [l.cluster]: 'prod', namespace: 'serving', [$.cost.teamLabel]: 'team-b' })),
        ]),
  // Expected: research holds 1 + 3/7 H100 (its whole GPU and node-b's 3g.40gb instance), half of
  // each used; serving holds 1 A100, 0.25 used. On Slurm research holds 1.5 H100 and eval half
  // of one, each half used.
  local research = { [l.cluster]: 'prod', [ns]: 'research' },
  local serving = { [l.cluster]: 'prod', [ns]: 'serving' },
  // Values to three decimals: shares of sevenths do not add up to the last bit.
  local check(name, expect) = [t.recordCase(if slurm then 'three jobs, two of them on one GPU' else 'two namespaces on whole and MIG GPUs', input, [x { value: t.round3(x.value) } for x in expect], 'round(' + name + ', 0.001)')],
  local researchGPUs = 1 + $.sharing.migProfileWeights['3g.40gb'],
  local researchUsed = 0.5 * researchGPUs,
  // What each holder holds (GPUs) and uses, of which SKU.
  local holders = if slurm then {
    research: { sku: h100, gpus: 1.5, used: 0.75 },
    serving: { sku: a100, gpus: 1, used: 0.25 },
    eval: { sku: h100, gpus: 0.5, used: 0.25 },
  } else {
    research: { sku: h100, gpus: researchGPUs, used: researchUsed },
    serving: { sku: a100, gpus: 1, used: 0.25 },
  },
  local at(name) = { [l.cluster]: 'prod', [holder.label]: name },
  local dollars(what) = [t.sample(at(x), what(holders[x]) * price(holders[x].sku)) for x in std.objectFields(holders)],
  local total(what) = std.sum([what(x) * price(x.sku) for x in std.objectValues(holders)]),
  // GPU-hours of the last day: the per-hour record summed over its samples, each one
  // evaluation interval long. The cases feed the test's hour (evalTime / interval + 1 samples).
  local hoursPerSample = e.seconds($.recording.interval) / 3600,
  local gpuHours(rec) = e.fill(|||
    sum_over_time($(rec)[1d]) / $(samplesPerHour)
  |||, { rec: rec, samplesPerHour: e.num(3600 / e.seconds($.recording.interval)) }),
  local testSamples = e.seconds($.tests.evalTime) / e.seconds($.tests.interval) + 1,

  // One price rule per SKU, told apart by its modelName label (an `or` of label_replace()s
  // would do the same in one rule, but reads to pint as dead code).
  records+: {
    ['mig_profile:gpu_share:ratio:' + p]: {
      // (Pods' and namespaces': a Slurm fleet's jobs have slurm/jobs.libsonnet's.)
      section: 'kubernetes',
      record: 'mig_profile:gpu_share:ratio',
      labels: { [l.migProfile]: p },
      family: 'cost',
      expr: e.fill(|||
        vector($(weight))
      |||, { weight: e.num($.sharing.migProfileWeights[p]) }),
    }
    for p in std.objectFields($.sharing.migProfileWeights)
  } + {
    ['sku:gpu_hourly_cost:dollars:' + s]: {
      record: 'sku:gpu_hourly_cost:dollars',
      section: 'cost',
      labels: { [l.modelName]: s },
      family: 'cost',
      expr: e.fill(|||
        vector($(price))
      |||, { price: e.num(price(s)) }),
      // One case checks every SKU's rule: they record one metric.
      [if s == skus[0] then 'tests']: check('sku:gpu_hourly_cost:dollars', [t.sample({ [l.modelName]: x }, price(x)) for x in skus]),
    }
    for s in skus
  } + {
    // The share of a GPU each (GPU or MIG instance, pod) stands for: the instance's weight
    // (1 for a whole GPU, its profile's for a MIG instance, 1/n of the GPU for a profile the
    // table lacks), split evenly among the pods on it (time-slicing), labelled with the alert
    // identity and the instance; for the GPUs and instances a workload's pod holds (not the
    // exporter's own, see exporter.ownPodTargets).
    [names.gpuShare]: {
      // (Pods' and namespaces': a Slurm fleet's jobs have slurm/jobs.libsonnet's.)
      section: 'kubernetes',
      family: 'cost',
      comments: [
        'A whole GPU has no GPU_I_ID on either side of on (..., GPU_I_ID): Prometheus matches the missing label as empty,',
        "which the time-sliced case proves; pint's promql/impossible takes the whole-GPU branch for dead code.",
        'pint disable promql/impossible',
      ],
      local slot = $.identity.gpuJoin + [l.migInstance],
      local pieces = {
        slot: std.join(', ', slot),
        gpuJoin: std.join(', ', $.identity.gpuJoin),
        health: $.exporter.health(),
        mig: l.migInstance,
        profile: l.migProfile,
      },
      local profiled = e.fill(|||
        max by ($(slot)) (group by ($(slot), $(profile)) ($(instances)) * on ($(profile)) group_left () mig_profile:gpu_share:ratio)
      |||, pieces { instances: $.exporter.health(e.match(l.migInstance, '!=', '')) }),
      // A whole GPU's series have no instance label: grouped without it, they join slot "".
      local whole = e.fill(|||
        group by ($(gpuJoin)) ($(wholeGPUs))
      |||, pieces { wholeGPUs: $.exporter.health(e.match(l.migInstance, '=', '')) }),
      // A GPU's count of instances is never 0; the filter says so to pint (promql/nan).
      local evenly = e.fill(|||
        group by ($(slot)) ($(health)) / on ($(gpuJoin)) group_left () (count by ($(gpuJoin)) (group by ($(slot)) ($(health))) > 0)
      |||, pieces),
      // Never 0 (a slot that reports has a holder, perhaps no pod); the filter says so to pint.
      // Each holder's pod where the catalog reads it (the exporter's own counts once).
      local holders = e.fill(|||
        (count by ($(slot)) (group by ($(slot), $(ns), $(pod)) ($(held))) > 0)
      |||, pieces { ns: ns, pod: l.pod, held: $.exporter.workload($.exporter.health()) }),
      expr: e.fill(|||
        group by ($(alert), $(mig)) ($(held)) * on ($(slot)) group_left () (($(profiled) or $(whole) or $(evenly)) / $(holders))
      |||, pieces { alert: std.join(', ', id), held: $.exporter.attributed($.exporter.health()), profiled: profiled, whole: whole, evenly: evenly, holders: holders }),
      local shared(pod) = gpu('node-s', 0, a100, ['serving', pod]),
      local layout = [['3g.40gb', 'train-3g'], ['2g.20gb', 'train-2g'], ['1g.10gb', 'infer-a'], ['1g.10gb', 'infer-b']],
      local migGPU(i) = gpu('node-m', 0, h100, ['research', layout[i][1]], i + 1) { [l.migProfile]: layout[i][0] },
      tests: [
        t.recordCase('a GPU shared by 4 time-sliced pods',
                     [t.series(h, '65x60', shared('llm-' + i)) for i in std.range(0, 3)],
                     [
                       t.sample(
                         shared('llm-' + i) { [l.container]:: null, job:: null, instance:: null, [l.device]:: null, [l.driverVersion]:: null },
                         0.25,
                       )
                       for i in std.range(0, 3)
                     ],
                     names.gpuShare),
        t.recordCase('a 3g+2g+1g+1g layout',
                     [t.series(h, '65x60', migGPU(i)) for i in std.range(0, 3)],
                     [
                       t.sample(
                         migGPU(i) { [l.container]:: null, job:: null, instance:: null, [l.device]:: null, [l.driverVersion]:: null, [l.migProfile]:: null },
                         t.round3([3, 2, 1, 1][i] / 7),
                       )
                       for i in std.range(0, 3)
                     ],
                     'round(' + names.gpuShare + ', 0.001)'),
      ],
    },
    'namespace:gpu_allocated:sum': {
      // (Pods' and namespaces': a Slurm fleet's jobs have slurm/jobs.libsonnet's.)
      section: 'kubernetes',
      family: 'cost',
      expr: e.fill(|||
        sum by ($(by)) ($(share){$(ns)!=""})
      |||, { by: std.join(', ', perNamespace), share: names.gpuShare, ns: ns }),
      tests: check('namespace:gpu_allocated:sum', [t.sample(research { [l.modelName]: h100 }, researchGPUs), t.sample(serving { [l.modelName]: a100 }, 1)]),
    },
    'namespace:gpu_used:sum': {
      // (Pods' and namespaces': a Slurm fleet's jobs have slurm/jobs.libsonnet's.)
      section: 'kubernetes',
      family: 'cost',
      local gpu = std.join(', ', id + [l.migInstance]),
      local activity = e.fill(|||
        max by ($(gpu)) ($(activity))
      |||, { gpu: gpu, activity: $.exporter.workload('avg_over_time(DCGM_FI_PROF_GR_ENGINE_ACTIVE[5m])') }),
      expr: e.fill(|||
        sum by ($(by)) ($(share){$(ns)!=""} * on ($(gpu)) group_left () $(activity))
      |||, { by: std.join(', ', perNamespace), share: names.gpuShare, ns: ns, gpu: gpu, activity: activity }),
      tests: check('namespace:gpu_used:sum', [t.sample(research { [l.modelName]: h100 }, researchUsed), t.sample(serving { [l.modelName]: a100 }, 0.25)]),
    },
  } + (if slurm then {} else {
         // A partial day: the namespaces held their GPUs for the test's hour only (a Slurm job's
         // GPU-hours: slurm/jobs.libsonnet).
         'namespace:gpu_hours_allocated:sum1d': {
           section: 'cost',
           family: 'cost',
           expr: gpuHours('namespace:gpu_allocated:sum'),
           tests: check(
             'namespace:gpu_hours_allocated:sum1d',
             [
               t.sample(research { [l.modelName]: h100 }, researchGPUs * testSamples * hoursPerSample),
               t.sample(serving { [l.modelName]: a100 }, testSamples * hoursPerSample),
             ],
           ),
         },
         'namespace:gpu_hours_used:sum1d': {
           section: 'cost',
           family: 'cost',
           expr: gpuHours('namespace:gpu_used:sum'),
           tests: check(
             'namespace:gpu_hours_used:sum1d',
             [
               t.sample(research { [l.modelName]: h100 }, researchUsed * testSamples * hoursPerSample),
               t.sample(serving { [l.modelName]: a100 }, 0.25 * testSamples * hoursPerSample),
             ],
           ),
         },
       }) + {
    // GPUs allocated on SKUs the price table does not list: chargeback would price them at 0.
    'cluster:gpu_unpriced:sum': {
      section: 'cost',
      family: 'cost',
      expr: e.fill(|||
        sum by ($(cluster), $(sku)) ($(allocated) unless on ($(sku)) sku:gpu_hourly_cost:dollars)
      |||, { cluster: l.cluster, sku: l.modelName, allocated: holder.allocated }),
      local b200 = gpu('node-c', 0, 'NVIDIA B200', if slurm then null else ['research', 'train-2']) + (if slurm then { [l.job]: 'research' } else {}),
      tests: [t.recordCase('an SKU without a price', input + [
        t.series(h, '65x60', b200),
        t.series('DCGM_FI_PROF_GR_ENGINE_ACTIVE', '0.5x60', b200),
      ], [t.sample({ [l.cluster]: 'prod', [l.modelName]: 'NVIDIA B200' }, 1)], 'cluster:gpu_unpriced:sum')],
    },
    local priced(rec) = e.fill(|||
      $(rec) * on ($(sku)) group_left () sku:gpu_hourly_cost:dollars
    |||, { rec: rec, sku: l.modelName }),
    [costRecord]: {
      section: 'cost',
      family: 'cost',
      expr: e.fill(|||
        sum by ($(cluster), $(holder)) ($(cost))
      |||, { cluster: l.cluster, holder: holder.label, cost: priced(holder.allocated) }),
      tests: check(costRecord, dollars(function(x) x.gpus)),
    },
    [idleCostRecord]: {
      section: 'cost',
      family: 'cost',
      expr: e.fill(|||
        sum by ($(cluster), $(holder)) ($(cost))
      |||, { cluster: l.cluster, holder: holder.label, cost: priced(e.fill('($(allocated) - $(used))', holder)) }),
      tests: check(idleCostRecord, dollars(function(x) x.gpus - x.used)),
    },
  } + (if slurm then {} else {
         'team:gpu_cost_dollars_per_hour:sum': {
           section: 'cost',
           family: 'cost',
           // Each namespace's team, from its kube_namespace_labels label.
           local teams = e.asExporterNamespace(l, e.fill(|||
             label_replace(kube_namespace_labels{job="$(job)", $(teamLabel)!=""}, "$(team)", "$1", "$(teamLabel)", "(.+)")
           |||, { job: $.kubeStateMetrics.job, teamLabel: $.cost.teamLabel, team: l.team })),
           expr: e.fill(|||
             sum by ($(cluster), $(team)) (namespace:gpu_cost_dollars_per_hour:sum * on ($(cluster), $(ns)) group_left ($(team)) $(teams))
           |||, { cluster: l.cluster, team: l.team, ns: ns, teams: teams }),
           local team(name) = { [l.cluster]: 'prod', [l.team]: name },
           tests: check('team:gpu_cost_dollars_per_hour:sum', [t.sample(team('team-a'), researchGPUs * price(h100)), t.sample(team('team-b'), price(a100))]),
         },
       }) + {
    'cluster:gpu_cost_dollars_per_hour:sum': {
      section: 'cost',
      family: 'cost',
      expr: e.fill(|||
        sum by ($(cluster)) ($(cost))
      |||, { cluster: l.cluster, cost: costRecord }),
      tests: check('cluster:gpu_cost_dollars_per_hour:sum', [t.sample({ [l.cluster]: 'prod' }, total(function(x) x.gpus))]),
    },
    'cluster:gpu_idle_cost_dollars_per_hour:sum': {
      section: 'cost',
      family: 'cost',
      expr: e.fill(|||
        sum by ($(cluster)) ($(cost))
      |||, { cluster: l.cluster, cost: idleCostRecord }),
      tests: check('cluster:gpu_idle_cost_dollars_per_hour:sum', [t.sample({ [l.cluster]: 'prod' }, total(function(x) x.gpus - x.used))]),
    },
  },

  alerts+: {
    GPUCostUnpriced: {
      section: 'cost',
      family: 'cost',
      team: $.teams['ml-platform'],
      severity: 'info',
      expr: 'cluster:gpu_unpriced:sum > 0',
      'for': '15m',
      identity: [l.cluster, l.modelName],
      summary: 'GPUs of an SKU without a price are allocated: chargeback prices them at 0.',
      description: '{{ $value }} GPUs of {{ $labels.' + l.modelName + ' }} are allocated in cluster {{ $labels.' + l.cluster + ' }}, but cost.gpuHourly has no price for that SKU: their cost records read 0.',
      tests: [
        t.case('an SKU the price table lacks', true, [t.series(h, '65x60', { [l.modelName]: 'NVIDIA B200' })], health=false, target={ [l.modelName]: 'NVIDIA B200' }, value=1),
        t.case('a priced SKU', false, []),
      ],
      runbook: {
        meaning: (if slurm then 'Jobs' else 'Pods') + " hold GPUs whose modelName has no entry in the catalog's cost.gpuHourly: " + (if slurm then 'job, user and account' else 'namespace and team') + ' cost records price them at nothing.',
        impact: 'Chargeback and idle-cost reports understate what these ' + holder.level + 's spend; nothing breaks.',
        queries: [
          // ($$(cluster) is the dashboard variable $cluster.)
          { title: 'Unpriced GPUs by SKU', expr: e.fill(|||
            cluster:gpu_unpriced:sum{$(cluster)="$$(cluster)"}
          |||, { cluster: l.cluster }) },
          { title: (if slurm then 'Jobs' else 'Namespaces') + ' holding them', expr: e.fill(|||
            $(allocated){$(cluster)="$$(cluster)", $(sku)="$$(sku)"}
          |||, { allocated: holder.allocated, cluster: l.cluster, sku: l.modelName }) },
        ],
        diagnosis: [
          { check: 'Is the SKU new in the fleet (a new node pool)?', yes: 'Add its price to cost.gpuHourly in your gpuobs.jsonnet and regenerate.', no: '' },
          { check: 'Does the modelName differ only in spelling from a priced one (a driver reports it differently)?', yes: 'Add the spelling the exporter reports to cost.gpuHourly.', no: 'Add the SKU with its price.' },
        ],
        mitigation: ['Add the SKU to cost.gpuHourly (key: the modelName label exactly as the exporter reports it) and regenerate.'],
        escalation: 'The ML platform team owns the price table.',
        dashboards: ['L2'],
      },
    },
  },
}
