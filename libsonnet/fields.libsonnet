// DCGM fields that dcgm-exporter can export and that a GPU fleet cares about.
//
// Each entry:
//   id         DCGM field id (dcgm_fields.h)
//   type       Prometheus type as the exporter's counter file declares it
//   kind       real semantics: counter | gauge | flag (0/1) | bitmask | last-event |
//              lifetime (a count the board keeps in its InfoROM for its whole life: it
//              resets with neither the exporter nor the driver, so its raw value is
//              meaningful) (differs from `type` where the declared type lies)
//   unit       unit of the exported value
//   family     rule group the field belongs to
//   entity     gpu          one series per physical GPU, not reported for MIG instances
//              mig-repeated device-level value, repeated on every MIG instance's series
//              mig-native   value belongs to the MIG instance that reports it
//              nvlink       one series per NVLink (labels gpu_uuid, model_name)
//   default    collected by the exporter's default counter set
//   profiling  needs DCP (profiling) to be available and unlocked
//   rollup     how per-GPU values combine into node/cluster/fleet recording rules:
//              avg | sum | max | rate (counters, summed) | none. The defaults roll up what
//              fleet and cluster views, cost and alerts read; set it on any other field to
//              record it too (each rolled-up field costs about one read of its raw series
//              per interval, two for averages).
//   byNamespace  also roll up by namespace, over pod-attributed series: for what a workload
//              uses (utilization, memory, power, bandwidth), not for hardware health
//   seriesLabels  labels that split a GPU's value into series of their own (the code of the
//              exporter's XID counts): dashboards keep them apart
//   zeroIsUnmeasured  a GPU that cannot measure the field sends 0 instead of nothing (DCGM
//              reports 0, and dcgm-exporter writes it): dashboards draw a 0 as no reading
{
  local field(
    id,
    type,
    unit,
    family,
    entity,
    help,
    default=false,
    profiling=false,
    kind=type,
    rollup='none',
    byNamespace=false,
    labels=[],
    zeroIsUnmeasured=false,
  ) = {
    id: id,
    type: type,
    kind: kind,
    unit: unit,
    family: family,
    entity: entity,
    help: help,
    default: default,
    profiling: profiling,
    rollup: rollup,
    byNamespace: byNamespace,
    seriesLabels:: labels,
    zeroIsUnmeasured:: zeroIsUnmeasured,
  },

  // Fields that only the GPUs of some platforms report, by exporter.platform: the catalog and
  // the counter file gain them where the fleet has that platform, and the alerts that read
  // them exist where they are in the catalog.
  platformFields:: {
    hgx: {},
    // Grace Blackwell NVL72 racks (GB200, GB300): the GPU's place in the rack's NVLink fabric
    // (DCGM fields 170 to 175), its NVLink-C2C link to its Grace CPU (285, 286, 1400, 1401)
    // and the NVLink 5 counters, each over all links of the GPU (1211 to 1219; NVLink 4 and
    // older GPUs report none of them). DCGM 4.7 renames the NVLINK_COUNT_ ones
    // (DCGM_FI_DEV_NVLINK_RECOVERY_FAILED_TOTAL, ...): map them in exporter.fieldNames where
    // your exporter exports the new names.
    gb200: {
      DCGM_FI_DEV_FABRIC_MANAGER_STATUS: field(170, 'gauge', 'state', 'fabric', 'mig-repeated', "The GPU's registration in its NVLink fabric (0 not supported, 1 not started, 2 in progress, 3 success, 4 failure, 5 unrecognized, 6 NVML too old)."),
      DCGM_FI_DEV_FABRIC_MANAGER_ERROR_CODE: field(171, 'gauge', 'state', 'fabric', 'mig-repeated', 'Why the fabric registration failed (an NVML return code; set once registration completed).'),
      DCGM_FI_DEV_FABRIC_HEALTH_MASK: field(174, 'gauge', 'bitmask', 'fabric', 'mig-repeated', 'Fabric health, two bits per condition (degraded bandwidth, route recovery, unhealthy route, access-timeout recovery, configuration).', kind='bitmask'),
      DCGM_FI_DEV_FABRIC_HEALTH_SUMMARY: field(175, 'gauge', 'state', 'fabric', 'mig-repeated', 'Overall fabric health (0 not supported, 1 healthy, 2 unhealthy, 3 limited capacity).'),
      DCGM_FI_DEV_C2C_LINK_COUNT: field(285, 'gauge', 'count', 'c2c', 'mig-repeated', 'NVLink-C2C links between the GPU and its Grace CPU.'),
      DCGM_FI_DEV_C2C_LINK_STATUS: field(286, 'gauge', 'bool', 'c2c', 'mig-repeated', 'NVLink-C2C link status (1 active, 0 inactive).', kind='flag'),
      DCGM_FI_DEV_C2C_LINK_ERROR_INTR: field(1400, 'counter', 'count', 'c2c', 'mig-repeated', 'NVLink-C2C CRC errors.', rollup='rate'),
      DCGM_FI_DEV_C2C_LINK_ERROR_REPLAY: field(1401, 'counter', 'count', 'c2c', 'mig-repeated', 'NVLink-C2C replays.', rollup='rate'),
      DCGM_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_SUCCESSFUL_EVENTS: field(1211, 'counter', 'count', 'nvlink', 'mig-repeated', 'NVLink 5 link recoveries that brought the link back up, all links.'),
      DCGM_FI_DEV_NVLINK_COUNT_LINK_RECOVERY_FAILED_EVENTS: field(1212, 'counter', 'count', 'nvlink', 'mig-repeated', 'NVLink 5 link recoveries that failed: the link was declared down, all links.', rollup='rate'),
      DCGM_FI_DEV_NVLINK_COUNT_SYMBOL_BER_FLOAT: field(1216, 'gauge', 'bit_error_rate', 'nvlink', 'mig-repeated', 'NVLink 5 symbol bit error rate, before forward error correction, all links.'),
      DCGM_FI_DEV_NVLINK_COUNT_EFFECTIVE_BER_FLOAT: field(1218, 'gauge', 'bit_error_rate', 'nvlink', 'mig-repeated', 'NVLink 5 effective bit error rate, after forward error correction, all links.'),
      DCGM_FI_DEV_NVLINK_COUNT_EFFECTIVE_ERRORS: field(1219, 'counter', 'count', 'nvlink', 'mig-repeated', 'NVLink 5 errors that forward error correction could not correct, all links.', rollup='rate'),
    },
  },

  // (An unknown platform adds nothing here: exporter.platform's check reports it.)
  fields: std.get($.platformFields, $.exporter.platform, {}) + {
    // Clocks
    DCGM_FI_DEV_SM_CLOCK: field(100, 'gauge', 'MHz', 'clocks', 'mig-repeated', 'SM clock frequency.', default=true),
    DCGM_FI_DEV_MEM_CLOCK: field(101, 'gauge', 'MHz', 'clocks', 'mig-repeated', 'Memory clock frequency.', default=true),
    DCGM_FI_DEV_MAX_SM_CLOCK: field(113, 'gauge', 'MHz', 'clocks', 'mig-repeated', 'Maximum supported SM clock.'),

    // Clock events (throttle reasons). Renamed DCGM_FI_DEV_CLOCKS_EVENT_REASONS in newer DCGM; same id.
    DCGM_FI_DEV_CLOCK_THROTTLE_REASONS: field(112, 'gauge', 'bitmask', 'throttling', 'mig-repeated', 'Current clock throttle reasons (bitmask; 0x1 means idle, not throttled).', kind='bitmask'),
    DCGM_FI_DEV_CLOCKS_EVENT_REASONS: field(112, 'gauge', 'bitmask', 'throttling', 'mig-repeated', 'Current clock event reasons (bitmask; 0x1 means idle, not throttled).', kind='bitmask'),

    // Temperature
    // Boards with GDDR memory (T4, L4, L40S, RTX) and vGPU guests measure no memory
    // temperature and send 0 (NVIDIA/DCGM#311, NVIDIA/dcgm-exporter#460).
    DCGM_FI_DEV_MEMORY_TEMP: field(140, 'gauge', 'celsius', 'thermal', 'mig-repeated', 'Memory (HBM) temperature.', default=true, zeroIsUnmeasured=true),
    DCGM_FI_DEV_GPU_TEMP: field(150, 'gauge', 'celsius', 'thermal', 'mig-repeated', 'GPU temperature.', default=true, rollup='max'),

    // Power
    DCGM_FI_DEV_POWER_USAGE: field(155, 'gauge', 'watts', 'power', 'mig-repeated', 'Power draw.', default=true, rollup='sum', byNamespace=true),
    DCGM_FI_DEV_TOTAL_ENERGY_CONSUMPTION: field(156, 'counter', 'millijoules', 'power', 'mig-repeated', 'Total energy consumption since boot.', default=true),
    DCGM_FI_DEV_POWER_MGMT_LIMIT: field(160, 'gauge', 'watts', 'power', 'mig-repeated', 'Current power management limit.'),

    // PCIe
    DCGM_FI_DEV_PCIE_TX_THROUGHPUT: field(200, 'counter', 'kilobytes', 'pcie', 'mig-repeated', 'PCIe bytes transmitted (older exporters; replaced by DCGM_FI_PROF_PCIE_TX_BYTES).'),
    DCGM_FI_DEV_PCIE_RX_THROUGHPUT: field(201, 'counter', 'kilobytes', 'pcie', 'mig-repeated', 'PCIe bytes received (older exporters; replaced by DCGM_FI_PROF_PCIE_RX_BYTES).'),
    // The PCIe link: the generation and lanes it runs at, and the most the GPU and its slot
    // support. A link that trains down (x8 of x16) halves host transfers for good; an idle link
    // drops its generation to save power, by design.
    DCGM_FI_DEV_PCIE_MAX_LINK_GEN: field(235, 'gauge', 'count', 'pcie', 'mig-repeated', 'The highest PCIe generation the GPU and its slot support.'),
    DCGM_FI_DEV_PCIE_MAX_LINK_WIDTH: field(236, 'gauge', 'count', 'pcie', 'mig-repeated', 'The most PCIe lanes the GPU and its slot support.'),
    DCGM_FI_DEV_PCIE_LINK_GEN: field(237, 'gauge', 'count', 'pcie', 'mig-repeated', 'The PCIe generation the link runs at (an idle link drops to a lower one).'),
    DCGM_FI_DEV_PCIE_LINK_WIDTH: field(238, 'gauge', 'count', 'pcie', 'mig-repeated', 'The PCIe lanes the link runs on.'),
    DCGM_FI_DEV_PCIE_REPLAY_COUNTER: field(202, 'counter', 'count', 'pcie', 'mig-repeated', 'Total number of PCIe retries.', default=true, rollup='rate'),

    // Utilization (not reported for MIG instances: use DCGM_FI_PROF_GR_ENGINE_ACTIVE there)
    DCGM_FI_DEV_GPU_UTIL: field(203, 'gauge', 'percent', 'utilization', 'gpu', 'GPU utilization: share of time at least one kernel ran (not SM saturation).', default=true, rollup='avg', byNamespace=true),
    DCGM_FI_DEV_MEM_COPY_UTIL: field(204, 'gauge', 'percent', 'utilization', 'gpu', 'Memory copy utilization.', default=true),
    DCGM_FI_DEV_ENC_UTIL: field(206, 'gauge', 'percent', 'utilization', 'gpu', 'Encoder utilization.', default=true),
    DCGM_FI_DEV_DEC_UTIL: field(207, 'gauge', 'percent', 'utilization', 'gpu', 'Decoder utilization.', default=true),

    // XID: a gauge holding the last XID seen; err_code/err_msg labels follow the value.
    DCGM_FI_DEV_XID_ERRORS: field(230, 'gauge', 'xid', 'xid', 'mig-repeated', 'Value of the last XID error encountered (held until the next XID).', default=true, kind='last-event'),

    // Computed by dcgm-exporter itself (no DCGM field id): the XID events of each code within
    // the exporter's window (--xid-count-window-size, 5 minutes by default), labelled xid.
    DCGM_EXP_XID_ERRORS_COUNT: field(0, 'gauge', 'count', 'xid', 'gpu', 'XID errors of each code within the exporter window (label xid).', labels=['xid']),
    // dcgm-exporter 4.8.3 and later: the XIDs of each code since the exporter started (label
    // xid). A code's series appears with its first XID, at 1, and every series starts again
    // when the exporter restarts.
    DCGM_EXP_XID_ERRORS_TOTAL: field(0, 'counter', 'count', 'xid', 'gpu', 'XID errors of each code since the exporter started (label xid).', labels=['xid']),
    // dcgm-exporter 4.8.3 and later: how many times each clock-event reason became active since
    // the exporter started (label clock_event: power_cap, hw_slowdown, hw_thermal, ...), counted
    // between scrapes too, so that a throttle shorter than a scrape interval is seen.
    DCGM_EXP_CLOCK_EVENTS_TOTAL: field(0, 'counter', 'count', 'throttling', 'gpu', 'Clock-event reasons that became active since the exporter started (label clock_event).', labels=['clock_event']),
    // The exporter's DCGM health check, one series per watched system (labels health_watch
    // and health_error_code): 0 pass, 10 warn, 20 fail.
    DCGM_EXP_GPU_HEALTH_STATUS: field(0, 'gauge', 'state', 'health', 'gpu', 'DCGM health of each watched system (0 pass, 10 warn, 20 fail; labels health_watch, health_error_code).', labels=['health_watch']),

    // Throttle durations (declared in microseconds; nanoseconds in exporters since late 2025)
    DCGM_FI_DEV_POWER_VIOLATION: field(240, 'counter', 'microseconds', 'throttling', 'mig-repeated', 'Throttling duration due to power constraints.'),
    DCGM_FI_DEV_THERMAL_VIOLATION: field(241, 'counter', 'microseconds', 'throttling', 'mig-repeated', 'Throttling duration due to thermal constraints.'),
    DCGM_FI_DEV_SYNC_BOOST_VIOLATION: field(242, 'counter', 'microseconds', 'throttling', 'mig-repeated', 'Throttling duration due to sync-boost constraints.'),
    DCGM_FI_DEV_BOARD_LIMIT_VIOLATION: field(243, 'counter', 'microseconds', 'throttling', 'mig-repeated', 'Throttling duration due to board limit constraints.'),
    DCGM_FI_DEV_LOW_UTIL_VIOLATION: field(244, 'counter', 'microseconds', 'throttling', 'mig-repeated', 'Throttling duration due to low utilization.'),
    DCGM_FI_DEV_RELIABILITY_VIOLATION: field(245, 'counter', 'microseconds', 'throttling', 'mig-repeated', 'Throttling duration due to reliability constraints.'),

    // Framebuffer memory (per GPU instance on MIG GPUs)
    DCGM_FI_DEV_FB_TOTAL: field(250, 'gauge', 'MiB', 'memory', 'mig-native', 'Total framebuffer memory.'),
    DCGM_FI_DEV_FB_FREE: field(251, 'gauge', 'MiB', 'memory', 'mig-native', 'Framebuffer memory free.', default=true, rollup='sum'),
    DCGM_FI_DEV_FB_USED: field(252, 'gauge', 'MiB', 'memory', 'mig-native', 'Framebuffer memory used.', default=true, rollup='sum', byNamespace=true),
    DCGM_FI_DEV_FB_RESERVED: field(253, 'gauge', 'MiB', 'memory', 'mig-native', 'Framebuffer memory reserved.', default=true),

    // ECC
    DCGM_FI_DEV_ECC_SBE_VOL_TOTAL: field(310, 'counter', 'count', 'ecc', 'mig-repeated', 'Single-bit (correctable) volatile ECC errors since the last driver load.', rollup='rate'),
    DCGM_FI_DEV_ECC_DBE_VOL_TOTAL: field(311, 'counter', 'count', 'ecc', 'mig-repeated', 'Double-bit (uncorrectable) volatile ECC errors since the last driver load.', rollup='rate'),
    DCGM_FI_DEV_ECC_SBE_AGG_TOTAL: field(312, 'counter', 'count', 'ecc', 'mig-repeated', 'Single-bit persistent ECC errors over the GPU lifetime.', kind='lifetime'),
    DCGM_FI_DEV_ECC_DBE_AGG_TOTAL: field(313, 'counter', 'count', 'ecc', 'mig-repeated', 'Double-bit persistent ECC errors over the GPU lifetime.', kind='lifetime'),

    // Retired pages
    // Retired pages and remapped rows: NVML's counts of the board's retired pages and
    // remapped rows, kept in its InfoROM across reboots and driver reloads (NVIDIA's dynamic
    // page retirement and row remapping documents).
    DCGM_FI_DEV_RETIRED_SBE: field(390, 'counter', 'count', 'retirement', 'mig-repeated', "Pages retired because of single-bit errors, over the board's life.", kind='lifetime'),
    DCGM_FI_DEV_RETIRED_DBE: field(391, 'counter', 'count', 'retirement', 'mig-repeated', "Pages retired because of double-bit errors, over the board's life.", kind='lifetime'),
    DCGM_FI_DEV_RETIRED_PENDING: field(392, 'counter', 'bool', 'retirement', 'mig-repeated', 'Pages pending retirement (declared a counter; behaves as a 0/1 flag until the next reset).', kind='flag'),

    // Row remapping
    DCGM_FI_DEV_UNCORRECTABLE_REMAPPED_ROWS: field(393, 'counter', 'count', 'retirement', 'mig-repeated', "Rows remapped because of uncorrectable errors, over the board's life.", default=true, kind='lifetime'),
    DCGM_FI_DEV_CORRECTABLE_REMAPPED_ROWS: field(394, 'counter', 'count', 'retirement', 'mig-repeated', "Rows remapped because of correctable errors, over the board's life.", default=true, kind='lifetime'),
    DCGM_FI_DEV_ROW_REMAP_FAILURE: field(395, 'gauge', 'bool', 'retirement', 'mig-repeated', 'Whether remapping of rows has failed (1 = the GPU is out of spare rows).', default=true, kind='flag'),
    DCGM_FI_DEV_ROW_REMAP_PENDING: field(396, 'gauge', 'bool', 'retirement', 'mig-repeated', 'Whether a row remap is pending until the next GPU reset.', kind='flag'),

    // NVLink (totals over all links of the GPU)
    DCGM_FI_DEV_NVLINK_CRC_FLIT_ERROR_COUNT_TOTAL: field(409, 'counter', 'count', 'nvlink', 'mig-repeated', 'NVLink flow-control CRC errors, all links.', rollup='rate'),
    DCGM_FI_DEV_NVLINK_CRC_DATA_ERROR_COUNT_TOTAL: field(419, 'counter', 'count', 'nvlink', 'mig-repeated', 'NVLink data CRC errors, all links.', rollup='rate'),
    DCGM_FI_DEV_NVLINK_REPLAY_ERROR_COUNT_TOTAL: field(429, 'counter', 'count', 'nvlink', 'mig-repeated', 'NVLink replay (retry) errors, all links.', rollup='rate'),
    DCGM_FI_DEV_NVLINK_RECOVERY_ERROR_COUNT_TOTAL: field(439, 'counter', 'count', 'nvlink', 'mig-repeated', 'NVLink recovery errors, all links.', rollup='rate'),
    // Declared a counter, but dcgm-exporter reports the current bandwidth (MiB/s), which goes
    // up and down: a gauge (dcgm-exporter issue 417).
    DCGM_FI_DEV_NVLINK_BANDWIDTH_TOTAL: field(449, 'counter', 'MiB_per_second', 'nvlink', 'mig-repeated', 'NVLink bandwidth, all lanes, in MiB/s (already a per-second rate: never rate() it).', default=true, kind='gauge'),

    // The driver's verdict on what the GPU needs to recover from a fault (nvmlDeviceGpuRecoveryAction_t,
    // DCGM 4 with driver R570 or later): 0 none, 1 GPU reset, 2 node reboot, 3 drain P2P,
    // 4 drain and reset. XID 154 announces each change.
    DCGM_FI_DEV_GPU_RECOVERY_ACTION: field(1523, 'gauge', 'state', 'recovery', 'gpu', 'Recovery action the driver asks for (0 none, 1 GPU reset, 2 node reboot, 3 drain P2P, 4 drain and reset).'),

    // vGPU
    DCGM_FI_DEV_VGPU_LICENSE_STATUS: field(526, 'gauge', 'bool', 'vgpu', 'gpu', 'vGPU license status (1 = licensed).', default=true, kind='flag'),

    // Profiling (DCP): per MIG instance on MIG GPUs
    DCGM_FI_PROF_GR_ENGINE_ACTIVE: field(1001, 'gauge', 'ratio', 'utilization', 'mig-native', 'Ratio of time the graphics engine is active.', default=true, profiling=true, rollup='avg', byNamespace=true),
    DCGM_FI_PROF_SM_ACTIVE: field(1002, 'gauge', 'ratio', 'utilization', 'mig-native', 'Ratio of cycles an SM has at least one warp assigned.', profiling=true, rollup='avg', byNamespace=true),
    DCGM_FI_PROF_SM_OCCUPANCY: field(1003, 'gauge', 'ratio', 'utilization', 'mig-native', 'Ratio of warps resident on an SM to the maximum.', profiling=true),
    DCGM_FI_PROF_PIPE_TENSOR_ACTIVE: field(1004, 'gauge', 'ratio', 'utilization', 'mig-native', 'Ratio of cycles the tensor (HMMA) pipe is active.', default=true, profiling=true, rollup='avg', byNamespace=true),
    DCGM_FI_PROF_DRAM_ACTIVE: field(1005, 'gauge', 'ratio', 'utilization', 'mig-native', 'Ratio of cycles the device memory interface is active.', default=true, profiling=true, rollup='avg'),
    DCGM_FI_PROF_PIPE_FP64_ACTIVE: field(1006, 'gauge', 'ratio', 'utilization', 'mig-native', 'Ratio of cycles the FP64 pipe is active.', profiling=true),
    DCGM_FI_PROF_PIPE_FP32_ACTIVE: field(1007, 'gauge', 'ratio', 'utilization', 'mig-native', 'Ratio of cycles the FP32 pipe is active.', profiling=true),
    DCGM_FI_PROF_PIPE_FP16_ACTIVE: field(1008, 'gauge', 'ratio', 'utilization', 'mig-native', 'Ratio of cycles the FP16 pipe is active.', profiling=true),
    // DCGM reports the PCIe and NVLink byte rates for whole GPUs only: N/A on MIG instances
    // (NVIDIA/DCGM#88), so dcgm-exporter sends no series for them on a MIG GPU
    // (NVIDIA/dcgm-exporter#726): entity gpu, never repeated per instance.
    DCGM_FI_PROF_PCIE_TX_BYTES: field(1009, 'gauge', 'bytes_per_second', 'pcie', 'gpu', 'PCIe transmit rate (already a per-second rate: never rate() it).', default=true, profiling=true),
    DCGM_FI_PROF_PCIE_RX_BYTES: field(1010, 'gauge', 'bytes_per_second', 'pcie', 'gpu', 'PCIe receive rate (already a per-second rate: never rate() it).', default=true, profiling=true),
    DCGM_FI_PROF_NVLINK_TX_BYTES: field(1011, 'gauge', 'bytes_per_second', 'nvlink', 'gpu', 'NVLink transmit rate, all links.', profiling=true),
    DCGM_FI_PROF_NVLINK_RX_BYTES: field(1012, 'gauge', 'bytes_per_second', 'nvlink', 'gpu', 'NVLink receive rate, all links.', profiling=true),
  },
}
