// Names of the recording rules gpuobs derives from the catalog, for alert expressions that
// read them. Mirrors internal/conventions (a Go test keeps the two in step); generation fails
// when an alert reads a recording rule that no rule produces.
{
  // signal('DCGM_FI_DEV_GPU_TEMP') == 'dcgm_gpu_temp': conventions.SignalName, from Go.
  signal:: std.native('signal'),

  // The per-GPU rate of a counter field: gpu:<signal>:rate<window>.
  gpuRate(field, window):: 'gpu:' + self.signal(field) + ':rate' + window,

  // The per-GPU counter of a counter field (rollup rate): the largest of the GPU's series,
  // whatever their pod or target labels, so that no increment is lost when they change.
  gpuCounter(field):: 'gpu:' + self.signal(field) + ':max',

  // The new XID events of the last window, per GPU and pod; the value is the XID.
  xidEvents(window):: 'gpu_pod:dcgm_xid_errors:new' + window,

  // Which pod holds which GPU (or MIG instance), labelled with the alert identity.
  gpuInfo:: 'gpu_pod:dcgm_gpu_info:group',

  // The series of the exporter's health fields, each GPU's first that it sends, with every
  // label of the exporter's series (derived where exporter.healthFields lists several).
  health:: 'gpu_pod:dcgm_health:group',

  // The tensor-pipe activity of each GPU of a training job over window, labelled with the job
  // (declared in workloads/training.libsonnet: the straggler record; the InfiniBand and NCCL sections
  // find the training jobs' pods by it).
  trainingActivity(window):: 'gpu_pod:dcgm_pipe_tensor_active:avg' + window,
  // ...and its SM clock, against which a straggler's cause is read.
  trainingClock(window):: 'gpu_pod:dcgm_sm_clock:avg' + window,

  // The share of a GPU each pod holds on each GPU or MIG instance (declared in cost.libsonnet;
  // the namespace rollups of the signals weigh by it).
  gpuShare:: 'gpu_pod:gpu_allocated:share',
  // On Slurm, the GPUs each job holds and uses by SKU, each GPU once whatever its jobs (declared
  // in slurm/jobs.libsonnet; cost prices them).
  jobGPUs:: 'job:slurm_gpus:sum',
  jobGPUsUsed:: 'job:slurm_gpus_used:sum',

  // The per-GPU flag of a throttle reason.
  gpuThrottle(reason):: 'gpu:dcgm_clock_throttle_' + reason + ':max',
}
