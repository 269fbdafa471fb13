// The end-to-end catalog on a fleet of one Prometheus per cluster (cluster their external
// label) under a Thanos ruler; the alerts the run waits for hold for a second, not 30 minutes,
// and the global layer reads 5 seconds behind, not 30 (the shards evaluate every second).
(import 'e2e.jsonnet') {
  topology+: { mode: 'sharded', globalEngine: 'thanos', globalQueryOffset: '5s' },
  alerts+: {
    GPUHotterThanFleetPeers+: { 'for': '1s' },
    GPUDriverVersionSkew+: { 'for': '1s' },
  },
}
