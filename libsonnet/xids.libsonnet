// The XID codes gpuobs knows, as data: each code's name, the action NVIDIA's XID catalog gives
// it (its "resolution bucket"), the architectures it is limited to where the catalog says so,
// and a note for the runbooks. The XID classes the alerts read (xid) are derived from the
// actions: a catalog changes a code's tier by giving it another action or a class of its own,
//   xidCatalog+: { '94'+: { class: 'hardware' } },
// adds a code the same way, and a code listed nowhere still tickets (GPUXidUnclassified).
{
  // NVIDIA's resolution buckets, each with the class its codes fall in (fellOffBus and fatal
  // page, hardware tickets, application is info) and what the bucket asks for.
  xidActions:: {
    RESTART_BM: { class: 'fatal', todo: 'reboot the node' },
    RESET_GPU: { class: 'fatal', todo: 'reset the GPU' },
    WORKFLOW_XID_48: { class: 'fatal', todo: "follow NVIDIA's double-bit ECC workflow: reset the GPU, then read XID 154 and the row-remap state" },
    CHECK_MECHANICALS: { class: 'hardware', todo: 'check the power cabling and seating of the board' },
    WORKFLOW_NVLINK_ERR: { class: 'hardware', todo: "follow NVIDIA's NVLink workflow: read the link error counters, then reset or reseat" },
    WORKFLOW_NVLINK5_ERR: { class: 'hardware', todo: "follow NVIDIA's NVLink 5 workflow: read the link error counters and the fabric state" },
    CONTACT_SUPPORT: { class: 'hardware', todo: 'open a case with NVIDIA support' },
    UPDATE_SWFW: { class: 'hardware', todo: 'update the driver or firmware' },
    XID_154: { class: 'hardware', todo: 'read the recovery action the driver now asks for and do it' },
    RESTART_APP: { class: 'application', todo: 'restart the application' },
    WORKFLOW_XID_45: { class: 'application', todo: 'look for the XID before it: this one only cleans up after it' },
    IGNORE: { class: 'application', todo: 'nothing on the GPU itself' },
  },

  // code: name, action (a key of xidActions), optionally class (overrides the action's),
  // architectures (where the code exists only there) and note.
  xidCatalog:: {
    '13': { name: 'Graphics engine exception', action: 'RESTART_APP', note: 'Almost always the application (illegal memory access, bad kernel). Check the job logs; act on the GPU only if it repeats across jobs.' },
    '31': { name: 'GPU memory page fault', action: 'RESTART_APP', note: 'Usually an application bug (out-of-bounds access). Treat like 13.' },
    '43': { name: 'GPU stopped processing', action: 'IGNORE', note: 'The application hit a fatal error and its context was torn down; the GPU is usually fine.' },
    '45': { name: 'Preemptive cleanup, due to previous errors', action: 'WORKFLOW_XID_45', note: 'The driver cleaned up after other errors or a killed job.' },
    '48': { name: 'Double-bit ECC error', action: 'WORKFLOW_XID_48', note: 'Data in GPU memory was corrupted. The running job is lost; the GPU needs a reset and, if it repeats, an RMA.' },
    '54': { name: 'Auxiliary power is not connected to the GPU board', action: 'CHECK_MECHANICALS', note: 'The board runs without its auxiliary power: check the cables before it is used again.' },
    '62': { name: 'Internal micro-controller halt', action: 'RESET_GPU', note: 'The GPU firmware stopped. Reset the GPU; replace it if it recurs.' },
    '63': { name: 'ECC page retirement or row-remap recording event', action: 'IGNORE', note: 'A bad memory row was recorded for remapping; it takes effect at the next reset (GPURetiredPagesPending tickets the pending remap).' },
    '64': { name: 'ECC page retirement or row-remap recording failure', action: 'RESET_GPU', note: 'The GPU could not record a bad row. Drain it and open an RMA.' },
    '74': { name: 'NVLink error', action: 'WORKFLOW_NVLINK_ERR', note: 'A link between GPUs failed. Check the NVLink error counters; reseat or replace the board or bridge.' },
    '79': { name: 'GPU has fallen off the bus', action: 'RESTART_BM', class: 'fellOffBus', note: 'The host lost the GPU on PCIe. Everything on it is lost; the node needs a reboot and usually hardware service.' },
    '92': { name: 'High single-bit ECC error rate', action: 'IGNORE', note: 'Memory is degrading: GPUEccSingleBitRate tickets the rate itself. Plan an RMA if it persists.' },
    '94': { name: 'Contained ECC error', action: 'RESTART_APP', note: 'An uncorrectable error was contained to the application that hit it. Reset the GPU when it is free.' },
    '95': { name: 'Uncontained ECC error', action: 'RESET_GPU', note: 'An uncorrectable error could not be contained; every application on the GPU is affected. Drain and reset; RMA if it repeats.' },
    '109': { name: 'Context switch timeout', action: 'RESET_GPU' },
    '119': { name: 'GSP RPC timeout', action: 'RESET_GPU', note: 'The GPU System Processor stopped answering the driver. Reset the GPU; update the driver if it recurs fleet-wide.' },
    '120': { name: 'GSP error', action: 'RESET_GPU', note: 'The GPU System Processor reported an error. Reset the GPU; update the driver if it recurs.' },
    '140': { name: 'Unrecovered ECC error', action: 'RESET_GPU' },
    '143': { name: 'GPU initialization failure', action: 'RESET_GPU' },
    '154': { name: 'GPU recovery action changed', action: 'XID_154', note: 'The driver changed the recovery action it asks for: the recovery-action alerts (DCGM field 1523) say which.' },
  } + {
    // The NVLink 5 error family of Blackwell GPUs.
    [std.toString(code)]: { name: 'NVLink 5 error', action: 'WORKFLOW_NVLINK5_ERR', architectures: ['Blackwell'] }
    for code in std.range(144, 150)
  },

  local catalog = $.xidCatalog,
  // (An unknown action is reported by the assertion below.)
  local classOf(code) = std.get(catalog[code], 'class', std.get($.xidActions, catalog[code].action, { class: 'application' }).class),
  // Each code's class, worked out once.
  local classes = { [code]: classOf(code) for code in std.objectFields(catalog) },
  assert std.all(
    [std.objectHas($.xidActions, catalog[c].action) for c in std.objectFields(catalog)],
  ) : 'xidCatalog: every action must be one of xidActions (' + std.join(', ', std.objectFields($.xidActions)) + '); not ' + std.join(
    ', ',
    std.set([catalog[c].action for c in std.objectFields(catalog) if !std.objectHas($.xidActions, catalog[c].action)]),
  ),

  // XID classes, derived from the catalog; the value of DCGM_FI_DEV_XID_ERRORS is the last XID
  // seen. Each class has its alert (hardware/xid.libsonnet).
  xid: {
    [class]: std.sort([std.parseInt(c) for c in std.objectFields(catalog) if classes[c] == class])
    for class in std.set(std.objectValues(classes))
  },
}
