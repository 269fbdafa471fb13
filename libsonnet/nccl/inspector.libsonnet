local e = import '../lib/expr.libsonnet';
local names = import '../lib/names.libsonnet';
local ncclLib = import '../lib/nccl.libsonnet';
{
  nccl:: {
    // The scrape job of the node_exporter that serves the inspector's files.
    job: 'node-exporter',
    // The label the inspector names the writing host by (the pod's name on Kubernetes); a
    // scrape config that also sets a target label node makes it exported_node.
    podLabel: 'node',
    // The inspector's file names (node_exporter's file label), the GPU's UUID in the first
    // group: as CUDA gives it (cuDeviceGetUuid: lowercase hex, 8-4-4-4-12), after a job id in
    // builds that stream per job; uuidPrefix makes it dcgm-exporter's (NVML's) UUID label.
    file: '.*nccl_inspector_metrics_(?:job[^_]*_)?([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})[.]prom',
    uuidPrefix: 'GPU-',
  },

  // The inspector rewrites its files every 30 s at the most (NCCL's inspector_prom.cc raises a
  // shorter NCCL_INSPECTOR_DUMP_THREAD_INTERVAL_MICROSECONDS to 30 s), and its rules read every
  // rank's series (docs/fleet-scale.md): they run every 3 minutes, in groups of their own, and
  // each alert is held for several of those evaluations before it fires.
  recording+: { sectionIntervals+: { nccl: '3m' } },

  thresholds+: {
    // A rank is a straggler when its communicator's median rank spends this many times as
    // long in a collective as it does: the median rank waits for it.
    ncclStragglerRatio: 1.5,
    // The fewest ranks (NCCL's nranks) a communicator has for the straggler test: of two, the
    // median is their mean, not a peer's time.
    ncclStragglerMinRanks: 3,
    // A communicator is starved when the most bus bandwidth any of its ranks measures for a
    // collective is below this share of what the same collective and message size reach
    // across the cluster (the most the communicators' 90th percentile reached over
    // windows.ncclBaseline), while its job computes: its GPUs' tensor-pipe activity over
    // ncclMinTensorActivity on average. (Not a busy gate: a job starved by the network waits
    // in its collectives, where NCCL's spin keeps SMs active and the tensor pipe idle; a
    // communication-bound job starved to 30 % shows SM activity 0.43.)
    ncclStarvedRatio: 0.5,
    ncclMinTensorActivity: 0.05,
  },

  windows+: {
    // A rank whose file was not written in this window is one the writer left (a pause, a
    // crashed job): its series are not read.
    ncclFresh: '5m',
    // The window the bandwidth a collective can reach is learned over.
    ncclBaseline: '1d',
  },

  local n = ncclLib($),
  local l = $.labels,
  local nc = $.nccl,
  local w = $.windows,
  local exec = n.exec,
  local bandwidth = n.bandwidth,
  local owner = n.owner,
  local communicator = n.communicator,
  local writing = n.writing,
  local best = n.best,
  local reached = n.reached,
  local size = n.size,
  local ranks = n.ranks,

  metrics+: {
    local labels = [l.cluster, 'job', 'instance', 'version', 'slurm_job_id', nc.podLabel, 'gpu', 'comm_name', 'n_nodes', 'nranks', 'collective', 'message_size', 'algo_proto'],
    // What one rank (a pod's GPU) writes, for lint's cardinality budget: its communicators
    // (a 3D-parallel job's tensor, pipeline and data-parallel groups and the world), the
    // collectives each runs and the message sizes each moves; NCCL picks one algorithm and
    // protocol per collective and size. A rule or panel that keeps these labels multiplies
    // the ranks it reads by them: aggregate them away, or pin a job.
    local fanout = { comm_name: 4, collective: 2, message_size: 3 },
    [exec]: { section: 'nccl', type: 'gauge', labels: labels, fanout: fanout },
    [bandwidth]: { section: 'nccl', type: 'gauge', labels: labels, fanout: fanout },
    // The point-to-point twins (NCCL_INSPECTOR_ENABLE_P2P=1: a pipeline stage's sends and
    // receives), p2p_operation Send or Recv in place of the collective and its algorithm;
    // shown on L4, not alerted on. A rank talks to its pipeline neighbours over one or two
    // communicators.
    local p2pLabels = [l.cluster, 'job', 'instance', 'version', 'slurm_job_id', nc.podLabel, 'gpu', 'comm_name', 'n_nodes', 'nranks', 'p2p_operation', 'message_size'],
    local p2pFanout = { comm_name: 2, p2p_operation: 2, message_size: 3 },
    nccl_p2p_exec_time_microseconds: { section: 'nccl', type: 'gauge', labels: p2pLabels, fanout: p2pFanout },
    nccl_p2p_bus_bandwidth_gbs: { section: 'nccl', type: 'gauge', labels: p2pLabels, fanout: p2pFanout },
    // node_exporter's modification time of each textfile: the inspector's are named by the
    // GPU's UUID.
    node_textfile_mtime_seconds: { section: 'nccl', type: 'gauge', labels: [l.cluster, 'job', 'instance', 'file'] },
  },


  records+: {
    // Of the family of the record it reads (which pod holds which GPU), in the section's own
    // slower group (recording.sectionIntervals): a pod's GPUs change only when it starts or
    // stops, and the files are fresh over windows.ncclFresh. It needs no profiling field:
    // dcgm-exporter's stock counters attribute GPUs to pods (to jobs on Slurm, where the
    // rank's job is the one its file's GPU is mapped to).
    [writing]: {
      section: 'nccl',
      family: 'allocation',
      local fresh = e.fill(|||
        label_replace(time() - node_textfile_mtime_seconds{job="$(job)", file=~"$(file)"} < $(fresh), "$(uuid)", "$(prefix)$1", "file", "$(file)")
      |||, { uuid: l.uuid, job: nc.job, file: nc.file, prefix: nc.uuidPrefix, fresh: e.num(e.seconds(w.ncclFresh)) }),
      // On Slurm a rank's GPU label is the CUDA index the job sees, which no GPU series
      // carries: a job's ranks on a host are read while every GPU the job holds there has its
      // file written (a rank's process seldom dies alone: NCCL aborts its job).
      local held = e.fill('$(gpuInfo){$(job)!=""}', { gpuInfo: names.gpuInfo, job: l.job }),
      expr: if n.slurm then e.fill(|||
        group by ($(host)) ($(held) and on ($(cluster), $(uuid)) $(fresh))
          unless on ($(host))
        ($(held) unless on ($(cluster), $(uuid)) $(fresh))
      |||, { host: std.join(', ', [l.cluster, l.host] + owner), held: held, cluster: l.cluster, uuid: l.uuid, fresh: fresh })
      else e.fill(|||
        group by ($(pod)) (
            $(gpuInfo){$(podLabel)!=""}
          * on ($(pods)) group_left ($(controller))
            max by ($(pods), $(controller)) ($(owners))
          and on ($(cluster), $(uuid))
            $(fresh)
        )
      |||, {
        pod: std.join(', ', [l.cluster, l.host, l.pod] + owner),
        gpuInfo: names.gpuInfo,
        podLabel: l.pod,
        pods: std.join(', ', [l.cluster, l.namespace, l.pod]),
        controller: 'owner_kind, owner_name',
        owners: $.training.owners,
        cluster: l.cluster,
        uuid: l.uuid,
        fresh: fresh,
      }),
    },
    // The host name each live rank writes, with its job. A pod's own, and its node's: a pod on
    // the host network (common for RDMA) takes its node's hostname, so the node names the pod's
    // ranks where the node runs one training job's pods (of two, the name is ambiguous and
    // neither is read by it). On Slurm, each host of each job.
    [n.rankHosts]: {
      section: 'nccl',
      family: 'allocation',
      local jobs = std.join(', ', [l.cluster, l.host] + owner),
      local onNodes = e.fill(|||
        group by ($(jobs)) ($(writing))
      |||, { jobs: jobs, writing: writing }),
      expr: if n.slurm then e.fill(|||
        group by ($(rankJobs)) (label_replace($(writing), "$(rank)", "$1", "$(host)", "(.*)"))
      |||, { rankJobs: std.join(', ', [l.cluster, nc.podLabel] + owner), writing: writing, rank: nc.podLabel, host: l.host })
      else e.fill(|||
        group by ($(rankJobs)) (
            label_replace($(writing), "$(rank)", "$1", "$(pod)", "(.*)")
          or
            label_replace($(onNodes) and on ($(node)) (count by ($(node)) ($(onNodes)) == 1), "$(rank)", "$1", "$(host)", "(.*)")
        )
      |||, {
        rankJobs: std.join(', ', [l.cluster, nc.podLabel] + owner),
        writing: writing,
        rank: nc.podLabel,
        pod: l.pod,
        onNodes: onNodes,
        node: std.join(', ', [l.cluster, l.host]),
        host: l.host,
      }),
    },
    // In the same group, after the records they read (another group's would be read a
    // cycle late).
    [best]: {
      section: 'nccl',
      family: 'allocation',
      expr: e.fill(|||
        max by ($(communicator)) ($(ranks))
      |||, { communicator: std.join(', ', communicator), ranks: ranks(e.fill(|||
        $(bandwidth){job="$(job)"}
      |||, { bandwidth: bandwidth, job: nc.job })) }),
    },
    [reached]: {
      section: 'nccl',
      family: 'allocation',
      expr: e.fill(|||
        quantile by ($(size)) (0.9, $(best))
      |||, { size: std.join(', ', size), best: best }),
    },
  },

}
