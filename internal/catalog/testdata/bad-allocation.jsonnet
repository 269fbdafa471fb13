// A GPU allocation mode spelt wrong.
(import 'gpuobs.libsonnet') { kubernetes+: { gpuAllocation: 'DRA' } }
