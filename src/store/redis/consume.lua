-- One verification's counters in one atomic step (src/store/redis/counters.ts builds the call).
-- KEYS: per limit its current-window and previous-window counter, then one credits hash {remaining, lastRefillAt}
--       per balance taking part (the key's, then the identity's shared one); all share one hash tag, so the script
--       stays single-slot on Redis Cluster.
-- ARGV: [1] number of limits n, [2] number of balances m (0, 1 or 2),
--       per limit i (at 2 + (i-1)*5): limit, duration, cost, elapsed, ttl (ms),
--       then per balance j (at 2 + n*5 + (j-1)*3): cost, refill boundary ('' when none), refill amount.
-- Reply: {outcome, current_1, previous_1, ..., current_n, previous_n, balance_1, ..., balance_m} with the window
--        counts as read (before this step) and each balance after it; outcome 0 VALID, 1 RATE_LIMITED,
--        2 USAGE_EXCEEDED (any balance short: none is spent). Only VALID writes anything.
-- Idempotency (optional): one more key after the balances, the record hash {fingerprint, reply, expiresAt}, and after
--   the balances' ARGV: fingerprint, expiresAt, now (unix ms, the callers' clock, which judges expiry), ttl (ms, which
--   lets Redis drop the record whatever its own clock says). A live record with the same fingerprint is answered as
--   {-2, "<now>,<n>,<m>,<reply...>"} (the first step's reply and time) and nothing is counted; another fingerprint is
--   {-1} and nothing is counted; otherwise the step runs and its reply is stored until expiresAt, whatever its outcome.
-- Numbers written to Redis are the caller's ARGV strings, INCRBY/HINCRBY results or integers below 2^53 formatted with
-- %d, never Lua numbers turned back into text with tostring (14 digits, which would corrupt large values).
-- Every redis.call costs Redis CPU (argument objects, the reply turned into Lua values): the common step makes four
-- (MGET, HMGET, SET, HINCRBY).
local n = tonumber(ARGV[1])
local m = tonumber(ARGV[2])
local reply = {0}
local record = KEYS[2 * n + m + 1]
local idem = 2 + n * 5 + m * 3
if record then
  local stored = redis.call('HMGET', record, 'fingerprint', 'reply', 'expiresAt')
  if stored[1] and tonumber(stored[3]) > tonumber(ARGV[idem + 3]) then
    if stored[1] ~= ARGV[idem + 1] then
      return {-1}
    end
    return {-2, stored[2]}
  end
end
local limited = false
for i = 1, n do
  local a = 2 + (i - 1) * 5
  local limit = tonumber(ARGV[a + 1])
  local duration = tonumber(ARGV[a + 2])
  local cost = tonumber(ARGV[a + 3])
  local elapsed = tonumber(ARGV[a + 4])
  -- Both windows in one call (one slot, one hash tag); a missing counter is false.
  local counts = redis.call('MGET', KEYS[2 * i - 1], KEYS[2 * i])
  local current = tonumber(counts[1] or '0')
  local previous = tonumber(counts[2] or '0')
  -- Same operations in the same order as evaluateWindow in src/domain/sliding-window.ts.
  if current + math.floor(previous * (duration - elapsed) / duration) + cost > limit then
    limited = true
  end
  reply[2 * i] = current
  reply[2 * i + 1] = previous
end

local short = false
local refillTo -- a table only when some refill is due
for j = 1, m do
  local c = 2 + n * 5 + (j - 1) * 3
  local balance = 0
  local stored = redis.call('HMGET', KEYS[2 * n + j], 'remaining', 'lastRefillAt')
  -- A missing balance counts as 0 and is never created here: fail closed.
  if stored[1] then
    balance = tonumber(stored[1])
    if ARGV[c + 2] ~= '' and (tonumber(stored[2]) or 0) < tonumber(ARGV[c + 2]) then
      refillTo = refillTo or {}
      refillTo[j] = stored[1]
      if balance < tonumber(ARGV[c + 3]) then
        balance = tonumber(ARGV[c + 3])
        refillTo[j] = ARGV[c + 3]
      end
    end
  end
  local cost = tonumber(ARGV[c + 1])
  if cost > 0 and balance < cost then
    short = true
  end
  reply[2 * n + 1 + j] = balance
end

-- One way out, so no closure is made per call: only VALID writes counts; a record keeps any outcome.
if limited then
  reply[1] = 1
elseif short then
  reply[1] = 2
else
  for i = 1, n do
    local a = 2 + (i - 1) * 5
    local cost = tonumber(ARGV[a + 3])
    if cost > 0 then
      local key = KEYS[2 * i - 1]
      local named = 0
      for k = 1, n do
        if KEYS[2 * k - 1] == key then
          named = named + 1
        end
      end
      if named == 1 then
        -- One call instead of INCRBY + PEXPIRE: the step passed, so current + cost <= limit < 2^53 and %d is exact.
        redis.call('SET', key, string.format('%d', reply[2 * i] + cost), 'PX', ARGV[a + 5])
      else
        -- A bucket named twice in one plan counts once per naming, as INCRBY does.
        redis.call('INCRBY', key, ARGV[a + 3])
        redis.call('PEXPIRE', key, ARGV[a + 5])
      end
    end
  end
  for j = 1, m do
    local c = 2 + n * 5 + (j - 1) * 3
    local key = KEYS[2 * n + j]
    if refillTo and refillTo[j] then
      redis.call('HSET', key, 'remaining', refillTo[j], 'lastRefillAt', ARGV[c + 2])
    end
    if tonumber(ARGV[c + 1]) > 0 then
      reply[2 * n + 1 + j] = redis.call('HINCRBY', key, 'remaining', '-' .. ARGV[c + 1])
    end
  end
end
-- Keeps the reply for retries: integers written with %d, exact to 2^53 (tostring would round to 14 digits).
if record then
  local text = {ARGV[idem + 3], tostring(n), tostring(m)}
  for k = 1, #reply do
    text[k + 3] = string.format('%d', reply[k])
  end
  redis.call('HSET', record, 'fingerprint', ARGV[idem + 1], 'reply', table.concat(text, ','), 'expiresAt', ARGV[idem + 2])
  redis.call('PEXPIRE', record, ARGV[idem + 4])
end
return reply
