// The embedded catalog, evaluated every second and notified at once, so that the end-to-end
// run takes seconds instead of minutes.
(import 'gpuobs.libsonnet') {
  recording+: { interval: '1s' },
  alertmanager+: {
    local fast = { groupWait: '1s', groupInterval: '2s', repeatInterval: '1h' },
    timing: { critical: fast, warning: fast },
  },
}
