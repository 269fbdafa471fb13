// Checks of the catalog's inputs, made before anything is derived from them: a mistake is
// reported by its catalog path, every one at once, instead of as a failure deep inside the
// library (a division by zero, a string added to a number). Each check reads only the value it
// checks, so that no other mistake can stop it.
local kind(v) =
  local t = std.type(v);
  if t == 'string' then 'the string "' + (if std.length(v) > 40 then std.substr(v, 0, 40) + '…' else v) + '"'
  else if t == 'number' then 'the number ' + v
  else if t == 'boolean' then std.toString(v)
  else if t == 'array' then 'a list'
  else if t == 'object' then 'an object'
  else if t == 'function' then 'a function'
  else 'null';
// A path is a list of keys and list indexes; a problem carries it rendered (slos.X.tiers[0])
// and as keys, so that gpuobs can put the embedded value there to check the rest of the catalog.
local render(path) = std.join('', [if std.type(k) == 'number' then '[' + k + ']' else '.' + k for k in path])[1:];
local problem(path, message) = [{ path: render(path), keys: path, message: message }];
local want(path, v, t, what) = if std.type(v) == t then [] else problem(path, 'is ' + kind(v) + '; want ' + what);
local section(c, name) = if std.objectHas(c, name) then c[name] else {};
local each(path, s, check) =
  if std.type(s) != 'object' then problem(path, 'is ' + kind(s) + '; want an object')
  else std.flattenArrays([check(path + [k], s[k]) for k in std.objectFields(s)]);
local numbers(path, v) =
  if std.type(v) != 'array' then problem(path, 'is ' + kind(v) + '; want a list of numbers')
  else std.flattenArrays([want(path + [i], v[i], 'number', 'a number') for i in std.range(0, std.length(v) - 1)]);

// typed checks the keys of an object that spec names, where present: spec maps a key to
// [JSON type, what to write instead].
local typed(path, o, spec) =
  if std.type(o) != 'object' then problem(path, 'is ' + kind(o) + '; want an object')
  else std.flattenArrays([want(path + [k], o[k], spec[k][0], spec[k][1]) for k in std.objectFields(spec) if std.objectHas(o, k)]);

local field(path, f) = typed(path, f, {
  id: ['number', 'the DCGM field id'],
  type: ['string', 'counter or gauge'],
  kind: ['string', 'a field kind'],
  unit: ['string', 'a unit'],
  family: ['string', 'a family name'],
  entity: ['string', 'an entity level'],
  help: ['string', 'a help text'],
  rollup: ['string', 'a rollup'],
  default: ['boolean', 'true or false'],
  profiling: ['boolean', 'true or false'],
  byNamespace: ['boolean', 'true or false'],
});

local slo(path, s) =
  if std.type(s) != 'object' then problem(path, 'is ' + kind(s) + '; want an object (start from $.sloDefaults)')
  else
    local missing = [f for f in ['team', 'objective', 'description', 'by', 'alerts', 'tiers', 'period'] if !std.objectHas(s, f)]
                    + [f + ' (a hidden function)' for f in ['errorRatio', 'scenario'] if !std.objectHasAll(s, f)];
    (if missing == [] then [] else problem(path, 'lacks ' + std.join(', ', missing) + '; start from $.sloDefaults and see how the shipped SLOs define them'))
    + (if !std.objectHas(s, 'objective') then []
       else if std.type(s.objective) != 'number' then want(path + ['objective'], s.objective, 'number', 'a ratio such as 0.99')
       else if s.objective <= 0 || s.objective >= 1 then problem(path + ['objective'], 'is ' + s.objective + '; must be above 0 and below 1, such as 0.99 (the share of good events)')
       else [])
    + (if !std.objectHas(s, 'tiers') then []
       else if std.type(s.tiers) != 'array' then want(path + ['tiers'], s.tiers, 'array', 'a list of tiers')
       else std.flattenArrays([
         local t = s.tiers[i];
         local tp = path + ['tiers', i];
         if std.type(t) != 'object' then problem(tp, 'is ' + kind(t) + '; want { alert, factor, long, short }')
         else std.flattenArrays([
           if std.objectHas(t, f[0]) then want(tp + [f[0]], t[f[0]], f[1], f[2]) else problem(tp + [f[0]], 'is missing')
           for f in [['alert', 'string', 'an alert suffix'], ['factor', 'number', 'a number'], ['long', 'string', 'a duration'], ['short', 'string', 'a duration']]
         ])
         for i in std.range(0, std.length(s.tiers) - 1)
       ]))
    + (if std.objectHas(s, 'alerts') then want(path + ['alerts'], s.alerts, 'object', 'an object of alerts by suffix') else []);

// exporter.platform names a profile of platformFields (the embedded ones or the catalog's own).
local platform(c) =
  local p = std.get(section(c, 'exporter'), 'platform', null);
  local known = std.objectFields(std.get(c, 'platformFields', {}, inc_hidden=true));
  if p == null || std.type(p) == 'string' && std.member(known, p) then []
  else problem(['exporter', 'platform'], 'is ' + kind(p) + '; want one of ' + std.join(', ', known) + ' (the profiles of platformFields)');

// exporter.healthFields lists at least one field name, read in turn.
local healthFields(c) =
  local f = std.get(section(c, 'exporter'), 'healthFields', null);
  if f == null then []
  else if std.type(f) != 'array' || f == [] || std.any([std.type(x) != 'string' for x in f]) then problem(['exporter', 'healthFields'], 'is ' + kind(f) + '; want a list of one or more field names, read in turn (DCGM_FI_DEV_GPU_TEMP, DCGM_FI_DEV_FB_FREE)')
  else [];

{
  problems(c)::
    each(['labels'], section(c, 'labels'), function(p, v) want(p, v, 'string', 'a label name'))
    + each(['thresholds'], section(c, 'thresholds'), function(p, v) want(p, v, 'number', 'a number'))
    + each(['windows'], section(c, 'windows'), function(p, v) want(p, v, 'string', 'a duration such as 10m'))
    + each(['enabled'], section(c, 'enabled'), function(p, v) want(p, v, 'boolean', 'true or false'))
    + each(['xid'], section(c, 'xid'), numbers)
    + each(['cost', 'gpuHourly'], section(section(c, 'cost'), 'gpuHourly'), function(p, v) want(p, v, 'number', 'a price per GPU-hour'))
    + each(['sharing', 'migProfileWeights'], section(section(c, 'sharing'), 'migProfileWeights'), function(p, v) want(p, v, 'number', 'a share of the GPU such as 0.428'))
    + typed(['sharing'], section(c, 'sharing'), { replicas: ['number', "the device plugin's replicas per GPU"] })
    + typed(['topology'], section(c, 'topology'), { mode: ['string', 'single or sharded'], shardLabel: ['string', 'a label name'], globalEngine: ['string', 'thanos or mimir'] })
    + each(['slos'], section(c, 'slos'), slo)
    + each(['fields'], section(c, 'fields'), field)
    + platform(c)
    + healthFields(c)
    + typed(['fleet'], section(c, 'fleet'), { [k]: ['number', 'a number'] for k in std.objectFields(section(c, 'fleet')) }),
}
