// A catalog written for an older gpuobs: it says where pod attribution arrives and that the
// GPUs are vGPU guests, which the rules now read without a setting, and sets a field beside
// them that no version had. Each retired setting is named with what replaced it, and the rest
// of the object is still checked.
(import 'gpuobs.libsonnet') {
  exporter+: { honorLabels: false, vgpuGuests: true, healthFeild: 'DCGM_FI_DEV_MEM_CLOCK' },
}
