// The Slurm queue (scheduler slurm): jobs that wait while GPUs of their partition sit idle,
// the HPC twin of a pod that waits for a node. slurmctld's /metrics/partitions counts each
// partition's GPUs, the GPUs its jobs hold and its pending jobs.
local e = import '../lib/expr.libsonnet';
local rb = import '../lib/runbook.libsonnet';
local t = import '../lib/test.libsonnet';
{
  windows+: {
    // How long a partition's jobs may wait while some of its GPUs are free: a job that
    // needs more GPUs per node than any node has free waits rightly for a while.
    pendingWhileIdle: '30m',
  },

  local l = $.labels,
  local s = $.slurm,
  local w = $.windows,
  local byPartition = std.join(', ', [l.cluster, 'partition']),
  local partition(metric) = e.fill('sum by ($(by)) ($(metric){job="$(job)"})', { by: byPartition, metric: metric, job: s.job }),
  local series(metric, values) = t.series(metric, values, { job: s.job, instance: 'slurmctld:6817', partition: 'gpu' }),

  metrics+: {
    local own = { section: 'slurm', type: 'gauge', labels: [l.cluster, 'job', 'instance', 'partition'] },
    slurm_partition_gpus: own,
    slurm_partition_jobs_pending: own,
  },

  alerts+: {
    // Jobs wait in a partition while some of its GPUs are free, for windows.pendingWhileIdle:
    // the scheduler cannot place them (limits, reservations, a node's GPUs split by other
    // jobs) or does not run (backfill stalled).
    GPUSlurmJobsPendingWhileGPUsIdle: {
      section: 'slurm',
      family: 'capacity',
      team: $.teams.infra,
      severity: 'warning',
      expr: e.fill(|||
        $(gpus) - $(held) > 0
        and on ($(by))
        $(pending) > 0
      |||, { gpus: partition('slurm_partition_gpus'), held: partition('slurm_partition_jobs_gpus_alloc'), by: byPartition, pending: partition('slurm_partition_jobs_pending') }),
      'for': w.pendingWhileIdle,
      identity: [l.cluster, 'partition'],
      summary: 'Jobs wait in a Slurm partition while some of its GPUs are free.',
      description: 'Partition {{ $labels.partition }} (cluster {{ $labels.' + l.cluster + ' }}) has had jobs pending for ' + w.pendingWhileIdle + ' while {{ $value }} of its GPUs held no job.',
      local gpus = series('slurm_partition_gpus', '16x60'),
      tests: [
        t.case('4 GPUs free and 3 jobs pending for the hour', true, [], extra=[gpus, series('slurm_partition_jobs_gpus_alloc', '12x60'), series('slurm_partition_jobs_pending', '3x60')], target={ partition: 'gpu' }, value=4),
        t.case('jobs pending on a full partition', false, [], extra=[gpus, series('slurm_partition_jobs_gpus_alloc', '16x60'), series('slurm_partition_jobs_pending', '3x60')]),
        t.case('free GPUs and no job waiting', false, [], extra=[gpus, series('slurm_partition_jobs_gpus_alloc', '12x60'), series('slurm_partition_jobs_pending', '0x60')]),
        t.case('jobs pending for 20 minutes', false, [], extra=[gpus, series('slurm_partition_jobs_gpus_alloc', '12x60'), series('slurm_partition_jobs_pending', '0x40 3x20')]),
      ],
      runbook: {
        meaning: 'For ' + w.pendingWhileIdle + ", slurmctld has counted pending jobs in the partition while it counts fewer of the partition's GPUs held by jobs than it has.",
        impact: 'Users wait while GPUs idle: the fleet delivers less than it has.',
        queries: [
          rb.query('Free GPUs of each partition', e.fill('$(gpus) - $(held)', { gpus: partition('slurm_partition_gpus'), held: partition('slurm_partition_jobs_gpus_alloc') })),
          rb.query('Pending jobs of each partition', partition('slurm_partition_jobs_pending')),
        ],
        diagnosis: [
          rb.step('Do the pending jobs wait for Resources (`squeue -p $partition -t PD -o "%i %u %a %b %r"`, the reason column)?', '', 'They wait on a limit (AssocGrpGRES, QOSMaxGRESPerUser, ...), a dependency or a reservation: working as configured; tell the users, or revisit the limit.'),
          rb.step('Are the free GPUs on drained or down nodes (`sinfo -p $partition -R`)?', 'They are not free: repair or resume the nodes.', ''),
          rb.step('Do the jobs ask for more GPUs per node than any node has free (`sinfo -p $partition -O NodeList,Gres,GresUsed`)?', 'Fragmentation: consider a reservation, or let running jobs end.', "Check the backfill scheduler (`sdiag`: its last cycle and depth) and slurmctld's log."),
        ],
        mitigation: ['Fix what keeps the GPUs free: resume repaired nodes, revisit limits or reservations, or tune backfill (bf_max_job_test, bf_window).'],
        escalation: rb.escalation.infra,
        dashboards: ['L2'],
      },
    },
  },
}
