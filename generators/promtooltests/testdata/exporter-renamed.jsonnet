// An exporter that exports fields under other names: the catalog follows exporter.fieldNames.
(import 'gpuobs.libsonnet') {
  exporter+: {
    version: '4.9',
    fieldNames: {
      DCGM_FI_DEV_GPU_TEMP: 'DCGM_FI_DEV_GPU_TEMPERATURE',
      DCGM_FI_DEV_ECC_DBE_VOL_TOTAL: 'DCGM_FI_DEV_ECC_DBE_VOLATILE_TOTAL',
    },
  },
}
