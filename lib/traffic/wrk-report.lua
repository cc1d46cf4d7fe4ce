-- cipherbench's script for wrk (docs/requests.md, "The engines").
-- wrk -s wrk-report.lua URL -- PROXIED CONNECTION
--   PROXIED     empty, or the target's host:port: each request then carries
--               its absolute URI, as a client of a plain HTTP proxy sends it
--   CONNECTION  "close" to open a connection for every request, else
--               "keep-alive"
-- done() prints one line of JSON after wrk's own text: the figures and
-- wrk's own CPU time, read from /proc/self/stat once its threads have
-- stopped, so the runner can say what the load generator cost.

function init(args)
  local proxied, connection = args[1], args[2]
  if proxied ~= nil and proxied ~= "" then
    wrk.path = "http://" .. proxied .. "/"
    wrk.headers["Host"] = proxied
  end
  if connection == "close" then
    wrk.headers["Connection"] = "close"
  end
end

-- utime and stime, fields 14 and 15 of /proc/self/stat (counted after the
-- command name, which may hold spaces), in clock ticks; -1 without /proc.
local function cpu_ticks()
  local file = io.open("/proc/self/stat", "r")
  if file == nil then return -1, -1 end
  local stat = file:read("*a")
  file:close()
  local fields = {}
  for field in stat:gsub("^.*%) ", ""):gmatch("%S+") do
    fields[#fields + 1] = field
  end
  return tonumber(fields[12]), tonumber(fields[13])
end

function done(summary, latency, requests)
  local user, system = cpu_ticks()
  local errors = summary.errors
  io.write(string.format(
    'cipherbench-wrk {"durationMicroseconds":%d,"requests":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"cpuTicks":{"user":%d,"system":%d},' ..
    '"latencyMicroseconds":{"min":%d,"mean":%.3f,"stdev":%.3f,"p50":%d,"p90":%d,"p99":%d,"p999":%d,"max":%d}}\n',
    summary.duration, summary.requests, summary.bytes,
    errors.connect, errors.read, errors.write, errors.status, errors.timeout,
    user, system,
    latency.min, latency.mean, latency.stdev,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9), latency.max))
end
