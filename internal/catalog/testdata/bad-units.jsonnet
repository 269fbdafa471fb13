// Units a team got wrong: a field in a unit nobody declared, a counter's unit with no rate to
// show, a scale of zero, a suffix without its underscore, and two units one Grafana id claims.
(import 'gpuobs.libsonnet') {
  units+: {
    kelvin: { grafana: 'kelvin', scale: 0, suffix: 'kelvin' },
    celsius_too: { grafana: 'celsius', scale: 1 },
    replays: { grafana: 'short', scale: 1 },
  },
  fields+: {
    DCGM_FI_DEV_MEMORY_TEMP+: { unit: 'fahrenheit' },
    DCGM_FI_DEV_PCIE_REPLAY_COUNTER+: { unit: 'replays' },
  },
}
