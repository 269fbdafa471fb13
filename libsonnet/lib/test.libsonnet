// Helpers for promtool scenarios in alert definitions.
{
  // One input series of a scenario: a metric on the scenario's GPU, promtool value notation,
  // extra labels.
  series(metric, values, labels={}):: { metric: metric, values: values, labels: labels },

  // A counter growing by perMinute every minute (tests sample once a minute).
  risingPerMinute(perMinute):: '0+' + perMinute + 'x60',

  // A counter whose increase over the last hour is perHour.
  risingPerHour(perHour):: '0+' + (perHour / 60) + 'x60',

  // A gauge holding each [value, minutes] in turn, in promtool notation: the first value is
  // the sample at 0, each value then repeats for its minutes.
  steps(parts):: std.join(' ', [std.toString(p[0]) + 'x' + p[1] for p in parts]),

  // One scenario on its own synthetic GPU.
  //   fires      whether the alert fires at the test's evaluation time
  //   value      the alert's value when it fires (rendered in the description)
  //   pod        a pod holds the GPU
  //   mig        the GPU is split into two MIG instances
  //   health     values of the exporter's health field, or false for none
  //   extraHealth  a second health series for the same GPU without pod labels (pod churn)
  //   up         values of the exporter's up series
  //   alsoFires  other alerts ({alert, value}) this scenario makes fire at the same time
  case(name, fires, series, value=null, pod=true, mig=false, health='65x60', extraHealth=null, up='1x60', alsoFires=[]):: {
    name: name,
    fires: fires,
    series: series,
    [if value != null then 'value']: value,
    pod: pod,
    mig: mig,
    health: if health == false then '' else health,
    [if extraHealth != null then 'extraHealth']: extraHealth,
    up: up,
    alsoFires: alsoFires,
  },
}
