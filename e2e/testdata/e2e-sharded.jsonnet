// The end-to-end catalog on a fleet of one Prometheus per cluster (cluster their external
// label) under a Thanos ruler; the alerts the run waits for hold for a second, not 30 minutes.
(import 'e2e.jsonnet') {
  topology+: { mode: 'sharded', globalEngine: 'thanos' },
  alerts+: {
    GPUHotterThanFleetPeers+: { 'for': '1s' },
    GPUDriverVersionSkew+: { 'for': '1s' },
  },
}
