// Sections misused: a switch for a section nothing is in, an alert in a section the switches do
// not list, and release left on while inference (whose metrics its records read) goes.
(import 'gpuobs.libsonnet') {
  enabled+: { inference: false, inferance: false },
  alerts+: { GPUTemperatureHigh+: { section: 'thermals' } },
}
