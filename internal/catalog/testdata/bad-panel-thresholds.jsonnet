// Two alerts that show one field's L5 panel at different thresholds: the panel has one line.
(import 'gpuobs.libsonnet') { alerts+: { GPUMemoryTemperatureHigh+: { panelThresholds+: { DCGM_FI_DEV_GPU_TEMP: 70 } } } }
