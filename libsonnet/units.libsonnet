// The units of the catalog's fields, once for every reader: how a dashboard shows a value in
// the unit (Grafana's unit id, and the factor that converts the value into it: Grafana has no
// MHz), how it shows the per-second rate of a counter in the unit (rate: every counter's unit
// has one), the metric-name suffix that claims the unit by Prometheus' naming conventions, and
// the other Grafana ids a hand-written dashboard may show it in (lint reads them), and the
// bounds every value in the unit keeps (gpuobs lint --scrape reports a value beyond them: the
// exporter sends another unit than the catalog reads). Add a unit here before a field uses it.
{
  units: {
    celsius: { grafana: 'celsius', scale: 1, suffix: '_celsius' },
    watts: { grafana: 'watt', scale: 1, suffix: '_watts' },
    MHz: { grafana: 'hertz', scale: 1e6, grafanaAliases: ['rotmhz'] },
    Hz: { grafana: 'hertz', scale: 1, suffix: '_hertz', grafanaAliases: ['rothz'] },
    MiB: { grafana: 'mbytes', scale: 1, grafanaAliases: ['decmbytes'] },
    bytes: { grafana: 'bytes', scale: 1, suffix: '_bytes', grafanaAliases: ['decbytes'] },
    percent: { grafana: 'percent', scale: 1, suffix: '_percent', bounds: [0, 100] },
    ratio: { grafana: 'percentunit', scale: 1, suffix: '_ratio', bounds: [0, 1] },
    seconds: { grafana: 's', scale: 1, suffix: '_seconds' },
    bytes_per_second: { grafana: 'Bps', scale: 1, suffix: '_bytes_per_second', grafanaAliases: ['binBps'] },
    MiB_per_second: { grafana: 'MiBs', scale: 1 },
    bool: { grafana: 'bool', scale: 1, bounds: [0, 1] },
    xid: { grafana: 'none', scale: 1 },
    bitmask: { grafana: 'none', scale: 1 },
    // A code naming a state (a health result, a recovery action).
    state: { grafana: 'none', scale: 1 },
    // Errors per bit transferred (NVLink's BER), shown in scientific notation.
    bit_error_rate: { grafana: 'sci', scale: 1 },
    millijoules: { grafana: 'joule', scale: 0.001, rate: { grafana: 'watt', scale: 0.001 } },
    joules: { grafana: 'joule', scale: 1, suffix: '_joules', rate: { grafana: 'watt', scale: 1 } },
    kilobytes: { grafana: 'kbytes', scale: 1, rate: { grafana: 'Bps', scale: 1024 } },
    microseconds: { grafana: 'µs', scale: 1, rate: { grafana: 'percentunit', scale: 1e-6 } },
    // Events: a counter of them is shown per minute.
    count: { grafana: 'short', scale: 1, rate: { grafana: 'cpm', scale: 60 } },
  },
}
