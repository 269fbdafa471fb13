// Independent mistakes in the inputs, each of which used to stop evaluation deep in the library
// with a trace (or a division by zero): all reported at once, by catalog path.
local gpuobs = import 'gpuobs.libsonnet';
gpuobs {
  thresholds+: { gpuTemperatureCelsius: '85' },
  windows+: { event: 10 },
  xid+: { fatal+: ['79'] },
  slos+: {
    InferenceLatency+: { objective: 1.0 },
    BatchThroughput: { objective: 0.99, team: 'ml-platform' },
  },
  cost+: { gpuHourly+: { 'NVIDIA H100 80GB HBM3': 'four dollars' } },
  sharing+: { replicas: 'four', migProfileWeights+: { '3g.40gb': '3/7' } },
  enabled+: { slurm: 'no' },
}
