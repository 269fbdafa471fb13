// Slurm jobs (scheduler slurm): which job holds which GPU, from dcgm-exporter's hpc_job, and
// what each job, user, account and partition holds, uses and costs.
//
// dcgm-exporter copies every series of a GPU once per job its mapping file lists
// (internal/pkg/transformation/hpc.go): a GPU listed for two jobs reports twice. Every record
// here counts a GPU once: each of its jobs holds an equal share of it, and the shares of a GPU
// add up to 1 in every rollup. Slurm's own per-user, per-account and per-partition counts
// (slurmctld's /metrics/jobs-users-accts and /metrics/partitions) give what no GPU series can:
// the user and the account of the GPUs held.
local e = import '../lib/expr.libsonnet';
local names = import '../lib/names.libsonnet';
local rb = import '../lib/runbook.libsonnet';
local t = import '../lib/test.libsonnet';
{
  windows+: {
    // The day chargeback counts GPU-hours over.
    chargeback: '1d',
  },

  local l = $.labels,
  local s = $.slurm,
  local th = $.thresholds,
  local w = $.windows,
  local gpuJoin = std.join(', ', $.identity.gpuJoin),
  local byJob = [l.cluster, l.job],
  local share = 'gpu_job:slurm_gpu:share',
  local held = names.jobGPUs,
  local used = names.jobGPUsUsed,
  local byJobSKU = std.join(', ', byJob + [l.modelName]),
  local activity = 'job:dcgm_gr_engine_active:avg',
  local jobGPUs = e.fill('$(gpuInfo){$(job)!=""}', { gpuInfo: names.gpuInfo, job: l.job }),
  // The per-hour records' GPU-hours over the chargeback day: each sample stands for one
  // evaluation interval.
  local hours(record) = e.fill(|||
    sum_over_time($(record)[$(day)]) * $(hours)
  |||, { record: record, day: w.chargeback, hours: e.num(e.seconds($.recording.interval) / 3600) }),
  // Slurm's per-user, per-account and per-partition counts of GPUs its jobs hold.
  local counts = {
    user: { metric: 'slurm_user_jobs_gpus_alloc', label: 'username', values: [2, 4] },
    account: { metric: 'slurm_account_jobs_gpus_alloc', label: 'account', values: [1, 5] },
    partition: { metric: 'slurm_partition_jobs_gpus_alloc', label: 'partition', values: [6] },
  },
  // A record by one of the counts (user: user:slurm_gpus_alloc:sum), and the one of the GPUs
  // each holds.
  local perCount(c, name) = e.fill('$(by):$(name)', { by: c, name: name }),
  local alloc(c) = perCount(c, 'slurm_gpus_alloc:sum'),
  // The cases' Slurm counts: six GPUs held, by two users, two accounts and one partition
  // (label values user1, user2, ...).
  local countsInput = [t.series('slurm_jobs_gpus_alloc', '6x60', { [l.cluster]: 'prod', job: s.job, instance: 'slurmctld:6817' })] + [
    t.series(counts[c].metric, counts[c].values[i] + 'x60', { [l.cluster]: 'prod', job: s.job, instance: 'slurmctld:6817', [counts[c].label]: counts[c].label + (i + 1) })
    for c in std.objectFields(counts)
    for i in std.range(0, std.length(counts[c].values) - 1)
  ],
  // GPU-hours one GPU held over a case's hour: the per-hour record's samples, each one
  // evaluation interval long.
  local testHours = (e.seconds($.tests.evalTime) / e.seconds($.tests.interval) + 1) * e.seconds($.recording.interval) / 3600,
  local slurm = { section: 'slurm', family: 'slurm' },

  metrics+: {
    local own = { section: 'slurm', type: 'gauge' },
    [counts[c].metric]: own { labels: [l.cluster, 'job', 'instance', counts[c].label] }
    for c in std.objectFields(counts)
  } + {
    slurm_jobs_gpus_alloc: { section: 'slurm', type: 'gauge', labels: [l.cluster, 'job', 'instance'] },
  } + (if s.jobInfo.source == 'none' then {} else {
         // soperator's exporter: one series per job, its owner and partition.
         slurm_job_info: { section: 'slurm', type: 'gauge', labels: [l.cluster, 'job', 'instance', 'job_id', 'user_name', 'slurm_partition', 'job_state'] },
       }),

  records+: {
    // Each job's share of each GPU it holds: 1 where the GPU is the job's alone, 1/n where its
    // mapping file lists n jobs.
    [share]: slurm {
      comments: ['Reads the GPU-to-job map of the allocation group: at most one evaluation interval behind; a map changes when a job starts or ends.'],
      // A GPU's count of jobs is never 0; the filter says so to pint (promql/nan).
      expr: e.fill(|||
        $(jobs) / on ($(gpu)) group_left () (count by ($(gpu)) ($(jobs)) > 0)
      |||, { jobs: jobGPUs, gpu: gpuJoin }),
      local g(i, job) = t.gpu(l, 'node-a', i) { [l.job]: job },
      tests: [t.recordCase(
        'a GPU listed for two jobs is half of each',
        [t.series($.exporter.healthField, '60x60', g(0, '4101')), t.series($.exporter.healthField, '60x60', g(0, '4102')), t.series($.exporter.healthField, '60x60', g(1, '4102'))],
        [t.sample(g(0, '4101') { [k]: null for k in ['job', 'instance', l.device, l.driverVersion] }, 0.5)],
        e.fill('$(share){$(job)="4101"}', { share: share, job: l.job }),
      )],
    },
    // The GPUs each job holds, by SKU (the price of a GPU-hour), each GPU once whatever its jobs.
    [held]: slurm {
      expr: e.fill('sum by ($(job)) ($(share))', { job: byJobSKU, share: share }),
    },
    // ...and uses: each share weighed by its GPU's engine activity over 5m (what cost calls
    // used; idle cost prices the rest).
    [used]: slurm {
      expr: e.fill(|||
        sum by ($(job)) ($(share) * on ($(gpu), $(jobLabel)) group_left () max by ($(gpu), $(jobLabel)) (avg_over_time(DCGM_FI_PROF_GR_ENGINE_ACTIVE{$(jobLabel)!=""}[5m])))
      |||, { job: byJobSKU, share: share, gpu: gpuJoin, jobLabel: l.job }),
      local g(i, job) = t.gpu(l, 'node-a', i) { [l.job]: job },
      local active(i, job, value) = [t.series($.exporter.healthField, '60x60', g(i, job)), t.series('DCGM_FI_PROF_GR_ENGINE_ACTIVE', value + 'x60', g(i, job))],
      tests: [t.recordCase(
        'half of a GPU half active and a GPU a quarter active',
        active(0, '4101', '0.5') + active(0, '4102', '0.5') + active(1, '4102', '0.25'),
        [t.sample({ [l.cluster]: 'prod', [l.job]: '4102', [l.modelName]: g(0, '4102')[l.modelName] }, 0.5)],
        e.fill('$(used){$(job)="4102"}', { used: used, job: l.job }),
      )],
    },
    // The GPUs jobs hold in each cluster: the shares add up to each GPU once.
    'cluster:slurm_job_gpus:sum': slurm {
      expr: e.fill('sum by ($(cluster)) ($(held))', { cluster: l.cluster, held: held }),
      local g(i, job) = t.gpu(l, 'node-a', i) { [l.job]: job },
      tests: [t.recordCase(
        'two jobs on one GPU and one on another: two GPUs, not three',
        [t.series($.exporter.healthField, '60x60', g(0, '4101')), t.series($.exporter.healthField, '60x60', g(0, '4102')), t.series($.exporter.healthField, '60x60', g(1, '4102'))],
        [t.sample({ [l.cluster]: 'prod' }, 2)],
        'cluster:slurm_job_gpus:sum',
      )],
    },
    // Each job's engine activity over its GPUs, each weighed by the job's share of it.
    [activity]: slurm {
      expr: e.fill(|||
        sum by ($(job)) (DCGM_FI_PROF_GR_ENGINE_ACTIVE{$(jobLabel)!=""} * on ($(gpu), $(jobLabel)) group_left () $(share)) / sum by ($(job)) ($(share))
      |||, { job: std.join(', ', byJob), jobLabel: l.job, gpu: gpuJoin, share: share }),
    },
    // GPU-hours each job held over the chargeback day (what HPC sites bill in).
    'job:slurm_gpu_hours:sum1d': slurm {
      expr: hours(held),
      local g(i, job) = t.gpu(l, 'node-a', i) { [l.job]: job },
      tests: [t.recordCase(
        'a job on one GPU and half of another for the hour',
        [t.series($.exporter.healthField, '60x60', g(0, '4101')), t.series($.exporter.healthField, '60x60', g(1, '4101')), t.series($.exporter.healthField, '60x60', g(1, '4102'))],
        [t.sample({ [l.cluster]: 'prod', [l.job]: '4101', [l.modelName]: g(0, '4101')[l.modelName] }, t.round3(1.5 * testHours))],
        e.fill('round($(record){$(job)="4101"}, 0.001)', { record: 'job:slurm_gpu_hours:sum1d', job: l.job }),
      )],
    },
  } + {
    // Slurm's own counts of the GPUs jobs hold, by user, account and partition, with their
    // GPU-hours over the chargeback day; each adds up to the cluster's.
    [alloc(c)]: slurm {
      expr: e.fill('sum by ($(cluster), $(label)) ($(metric){job="$(job)"})', { cluster: l.cluster, label: counts[c].label, metric: counts[c].metric, job: s.job }),
      tests: [t.recordCase('two of them share the cluster: they add up to it', countsInput, [t.sample({ [l.cluster]: 'prod' }, 0)], e.fill(|||
        sum by ($(cluster)) ($(by)) - cluster:slurm_gpus_alloc:sum
      |||, { cluster: l.cluster, by: alloc(c) }))],
    }
    for c in std.objectFields(counts)
  } + {
    [perCount(c, 'slurm_gpu_hours:sum1d')]: slurm {
      expr: hours(alloc(c)),
      tests: [
        t.recordCase(
          'GPUs held for the hour',
          countsInput,
          [t.sample({ [l.cluster]: 'prod', [counts[c].label]: counts[c].label + '1' }, t.round3(counts[c].values[0] * testHours))],
          e.fill('round($(record){$(label)="$(value)"}, 0.001)', { record: perCount(c, 'slurm_gpu_hours:sum1d'), label: counts[c].label, value: counts[c].label + '1' }),
        ),
      ],
    }
    for c in std.objectFields(counts)
  } + {
    // What users and accounts cost an hour: Slurm's counts of the GPUs they hold, priced at their
    // cluster's mean price of a held GPU (the cost of the jobs' GPUs by SKU over the GPUs Slurm
    // counts held), so that each adds up to the cluster's cost; exact per SKU where a cluster
    // has one (Slurm's per-user and per-account counts carry none). Per job the GPUs' own prices
    // are in job:gpu_cost_dollars_per_hour:sum.
    [perCount(c, 'gpu_cost_dollars_per_hour:sum')]: { section: 'cost', family: 'slurm' } {
      expr: e.fill(|||
        $(alloc) * on ($(cluster)) group_left () (cluster:gpu_cost_dollars_per_hour:sum / (cluster:slurm_gpus_alloc:sum > 0))
      |||, { alloc: alloc(c), cluster: l.cluster }),
      local sku = std.objectFields($.cost.gpuHourly)[0],
      local perGPU = $.cost.gpuHourly[sku],
      // Six GPUs of the first priced SKU, held by jobs, as Slurm counts them.
      local priced = countsInput + [
        t.series($.exporter.healthField, '60x60', t.gpu(l, 'node-a', i, sku) { [l.job]: '41' + i })
        for i in std.range(0, 5)
      ],
      local record = perCount(c, 'gpu_cost_dollars_per_hour:sum'),
      tests: [
        t.recordCase('one of them holds one GPU of six', priced, [t.sample({ [l.cluster]: 'prod', [counts[c].label]: counts[c].label + '1' }, t.round3(counts[c].values[0] * perGPU))], e.fill(|||
          round($(record){$(label)="$(value)"}, 0.001)
        |||, { record: record, label: counts[c].label, value: counts[c].label + '1' })),
        t.recordCase('they add up to the cluster', priced, [t.sample({ [l.cluster]: 'prod' }, 0)], e.fill(|||
          round(sum by ($(cluster)) ($(record)) - cluster:gpu_cost_dollars_per_hour:sum, 0.001)
        |||, { cluster: l.cluster, record: record })),
      ],
    }
    for c in ['user', 'account']
    if $.scheduler == 'slurm'
  } + {
    'cluster:slurm_gpus_alloc:sum': slurm {
      expr: e.fill('sum by ($(cluster)) (slurm_jobs_gpus_alloc{job="$(job)"})', { cluster: l.cluster, job: s.job }),
      tests: [t.recordCase("the cluster's six GPUs", countsInput, [t.sample({ [l.cluster]: 'prod' }, 6)], 'cluster:slurm_gpus_alloc:sum')],
    },
  },

  alerts+: {
    local jobText = 'Job {{ $labels.' + l.job + ' }} (cluster {{ $labels.' + l.cluster + ' }})',
    local info = s.jobInfo,
    // The job's user and partition, where a source tells them (slurm.jobInfo); the job alone
    // where it does not.
    local jobInfo = e.fill(|||
      label_replace(max by ($(cluster), job_id, user_name, slurm_partition) (slurm_job_info{job="$(infoJob)"}), "$(jobLabel)", "$1", "job_id", "(.+)")
    |||, { cluster: l.cluster, infoJob: info.job, jobLabel: l.job }),
    local withUser(expr) = if info.source == 'none' then expr else e.fill(|||
      ($(expr)) * on ($(job)) group_left (user_name, slurm_partition) $(info)
        or
      (($(expr)) unless on ($(job)) $(info))
    |||, { expr: expr, job: std.join(', ', byJob), info: jobInfo }),
    local jobOf(i) = t.scenarioHost + '-' + i,
    local infoSeries(i, user) = t.series('slurm_job_info', '1x60', { job: info.job, job_id: jobOf(i), user_name: user, slurm_partition: 'gpu', job_state: 'RUNNING' }),

    // A job that holds GPUs and has kept them idle: their engine activity (weighed by the
    // job's share of each) under thresholds.idleActivity for windows.idle.
    GPUSlurmJobIdle: slurm {
      team: $.teams['ml-platform'],
      severity: 'warning',
      expr: withUser(e.fill('$(activity) < $(idle)', { activity: activity, idle: e.num(th.idleActivity) })),
      'for': w.idle,
      identity: byJob + (if info.source == 'none' then [] else ['user_name', 'slurm_partition']),
      summary: 'A Slurm job holds GPUs it does not use.',
      description: jobText + (if info.source == 'none' then '' else ' of user {{ $labels.user_name }}') + ' has kept its GPUs under ' + e.percent(th.idleActivity) + ' % engine activity for ' + w.idle + ' ({{ $value | humanizePercentage }}).',
      local idle = e.num(th.idleActivity / 2) + 'x60',
      local busy = e.num((1 + th.idleActivity) / 2) + 'x60',
      local users = if info.source == 'none' then [] else [infoSeries(0, 'alice')],
      tests: [
        t.case(
          'a job idle on its GPU for the hour',
          true,
          [t.series('DCGM_FI_PROF_GR_ENGINE_ACTIVE', idle)],
          value=th.idleActivity / 2,
          extra=users,
          target={ [l.job]: jobOf(0) } + (if users == [] then {} else { user_name: 'alice', slurm_partition: 'gpu' }),
        ),
        t.case('a busy job', false, [t.series('DCGM_FI_PROF_GR_ENGINE_ACTIVE', busy)], extra=users),
        t.case('idle GPUs no job holds', false, [t.series('DCGM_FI_PROF_GR_ENGINE_ACTIVE', idle)], pod=false),
        t.case('a job idle for less than ' + w.idle, false, [t.series('DCGM_FI_PROF_GR_ENGINE_ACTIVE', t.steps([[0.5, 40], [th.idleActivity / 2, 20]]))], extra=users),
      ],
      runbook: {
        meaning: 'The GPUs a Slurm job holds have been idle for ' + w.idle + ': the job waits on something else (data, a peer, a debugger), or is done and holds them.',
        impact: 'Other jobs wait in the queue for GPUs that do nothing; the account is charged for them.',
        queries: [
          rb.query("The job's GPUs and their activity", e.fill('DCGM_FI_PROF_GR_ENGINE_ACTIVE{$(job)="$$(job)"}', { job: l.job })),
          rb.query('Jobs holding GPUs, least active first', e.fill('sort($(activity))', { activity: activity })),
        ],
        diagnosis: [
          rb.step('Does `squeue -j $' + l.job + ' -o "%i %u %a %P %M %N"` show it running for long?', 'Ask the user (`scontrol show job $' + l.job + '`) whether it still needs its GPUs.', ''),
          rb.step('Has the user left idle jobs before (`sacct -u <user> -S now-' + e.seconds(w.chargeback) + ' -o JobID,Partition,AllocTRES%40,Elapsed,State`: the chargeback window, ' + w.chargeback + ')?', 'Point them to interactive partitions with short time limits.'),
          rb.step('Is it an interactive allocation (salloc, a notebook)?', 'Ask the user to release it when idle; consider a time limit for the partition.'),
        ],
        mitigation: ['Ask the job owner to release the GPUs; with their agreement `scancel $' + l.job + '`.', 'Where idle interactive jobs recur, set a shorter time limit on their partition.'],
        escalation: rb.escalation.mlPlatform,
        dashboards: ['L2'],
      },
    },
  },
}
