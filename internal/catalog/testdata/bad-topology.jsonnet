// A topology with every setting wrong: each is reported, by catalog path.
local gpuobs = import 'gpuobs.libsonnet';
gpuobs {
  topology+: { mode: 'shards', shardLabel: 'kube-cluster', globalEngine: 'cortex' },
}
