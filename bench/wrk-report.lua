-- Prints wrk's summary as one JSON line (prefixed WRKJSON) for bench/common.py.
-- Optional: WRK_METHOD / WRK_BODY / WRK_HEADERS ("Name: value|Name: value") from the environment.
local method = os.getenv("WRK_METHOD")
local body = os.getenv("WRK_BODY")
local hdrs = os.getenv("WRK_HEADERS")
if method then wrk.method = method end
if body then wrk.body = body end
if hdrs then
  for pair in string.gmatch(hdrs, "[^|]+") do
    local k, v = string.match(pair, "^%s*([^:]+):%s*(.*)$")
    if k then wrk.headers[k] = v end
  end
end

function done(summary, latency, requests)
  io.write(string.format(
    'WRKJSON {"requests":%d,"duration_us":%d,"bytes":%d,"errors_connect":%d,"errors_read":%d,' ..
    '"errors_write":%d,"errors_status":%d,"errors_timeout":%d,"p50_us":%d,"p90_us":%d,"p99_us":%d,"max_us":%d}\n',
    summary.requests, summary.duration, summary.bytes, summary.errors.connect, summary.errors.read,
    summary.errors.write, summary.errors.status, summary.errors.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max))
end
