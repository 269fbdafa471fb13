// dcgm-exporter 4.9: hostname, the new driver label, the renamed clock-event bitmask, and
// fields in Hz, J, ratios and bytes.
(import 'gpuobs.libsonnet') { exporter+: { version: '4.9' } }
