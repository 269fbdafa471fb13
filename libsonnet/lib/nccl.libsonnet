// The names and series NCCL Inspector's records and alerts (nccl/) share: call it with the
// catalog, nccl($), and read its fields.
local e = import 'expr.libsonnet';
local names = import 'names.libsonnet';
function(c) {
  local l = c.labels,
  local nc = c.nccl,
  local w = c.windows,
  local slurm = c.scheduler == 'slurm',
  local exec = 'nccl_collective_exec_time_microseconds',
  local bandwidth = 'nccl_bus_bandwidth_gbs',
  // The job a rank belongs to: its pod's namespace and controller, or its Slurm job (the
  // inspector's slurm_job_id, under the catalog's job label).
  local owner = c.training.jobLabels,
  // A communicator: its name within its job, its size, and one collective and message size.
  local communicator = [l.cluster] + owner + ['comm_name', 'nranks', 'n_nodes', 'collective', 'message_size'],
  local rank = [nc.podLabel, 'gpu'],
  // The pods of training jobs (training.owners), labelled with their job, whose GPUs'
  // inspector files were written within windows.ncclFresh; on Slurm the hosts of each job whose
  // GPUs' files were (a rank there is its host and GPU).
  local writing = 'pod:nccl_inspector_file:fresh',
  // The most bus bandwidth a rank of each communicator measures: the rank that waited least
  // for the others.
  local best = 'communicator:nccl_bus_bandwidth_gbs:max',
  // What each collective, message size and node count reaches across a cluster now: the 90th
  // percentile of the communicators' best. The starved-collective alert reads its maximum over
  // windows.ncclBaseline: a day of these few series, not of every rank's.
  local reached = 'cluster:nccl_bus_bandwidth_gbs:p90',
  local size = [l.cluster, 'collective', 'message_size', 'n_nodes'],
  // The GPUs of training jobs, labelled with their job, and their tensor-pipe activity (the
  // straggler record): whether a job computes.
  local jobs = names.trainingActivity(w.straggler),
  // The host names the live ranks of training jobs write (the inspector's rank label), each
  // with its job: a pod's own hostname, a node's for a pod on the host network (where its node
  // runs one training job), a host's on Slurm.
  local rankHosts = 'rank:nccl_inspector_file:fresh',
  // The series of selector of the live ranks of training jobs, each labelled with its job: its
  // pod's owner, or on Slurm the job the inspector names (slurm_job_id) where its host writes
  // for that job.
  local ranks(selector) = if slurm then e.fill(|||
    (
      label_replace($(selector), "$(job)", "$1", "slurm_job_id", "(.+)")
      * on ($(cluster), $(job), $(rank)) group_left ()
        $(ranks)
    )
  |||, { selector: selector, cluster: l.cluster, job: l.job, rank: nc.podLabel, ranks: rankHosts })
  else e.fill(|||
    (
      $(selector)
      * on ($(cluster), $(rank)) group_left ($(owner))
        $(ranks)
    )
  |||, { selector: selector, cluster: l.cluster, rank: nc.podLabel, owner: std.join(', ', owner), ranks: rankHosts }),
  // For a runbook: the series of selector of the live ranks of the alert's job.
  local ranksOfTheJob(selector) = e.fill(|||
    $(selector)
    and on ($(cluster), $(rank))
      $(ranks){$(job)}
  |||, { selector: selector, cluster: l.cluster, rank: nc.podLabel, ranks: rankHosts, job: std.join(', ', [e.fill('$(label)="$$(label)"', { label: x }) for x in owner if x != 'owner_kind']) }),

  // What the nccl files read.
  exec:: exec,
  bandwidth:: bandwidth,
  owner:: owner,
  slurm:: slurm,
  communicator:: communicator,
  rank:: rank,
  writing:: writing,
  rankHosts:: rankHosts,
  best:: best,
  reached:: reached,
  size:: size,
  jobs:: jobs,
  ranks:: ranks,
  ranksOfTheJob:: ranksOfTheJob,
}
