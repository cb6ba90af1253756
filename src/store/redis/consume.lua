-- One verification's counters in one atomic step (src/store/redis/counters.ts builds the call).
-- KEYS: per limit its current-window and previous-window counter, then, when ARGV[2] == '1', the credits hash
--       {remaining, lastRefillAt}; all share one hash tag, so the script stays single-slot on Redis Cluster.
-- ARGV: [1] number of limits n, [2] '1' when credits take part,
--       per limit i (at 2 + (i-1)*5): limit, duration, cost, elapsed, ttl (ms),
--       then credits (at 2 + n*5): cost, refill boundary ('' when none), refill amount.
-- Reply: {outcome, balance, current_1, previous_1, ..., current_n, previous_n} with the window counts as read
--        (before this step); outcome 0 VALID, 1 RATE_LIMITED, 2 USAGE_EXCEEDED. Only VALID writes anything.
-- Numbers written to Redis are the caller's ARGV strings or INCRBY/HINCRBY results, never Lua numbers turned back
-- into text (Lua prints doubles with 14 digits, which would corrupt large values).
local n = tonumber(ARGV[1])
local reply = {0, 0}
local limited = false
for i = 1, n do
  local a = 2 + (i - 1) * 5
  local limit = tonumber(ARGV[a + 1])
  local duration = tonumber(ARGV[a + 2])
  local cost = tonumber(ARGV[a + 3])
  local elapsed = tonumber(ARGV[a + 4])
  local current = tonumber(redis.call('GET', KEYS[2 * i - 1]) or '0')
  local previous = tonumber(redis.call('GET', KEYS[2 * i]) or '0')
  -- Same operations in the same order as evaluateWindow in src/domain/sliding-window.ts.
  if current + math.floor(previous * (duration - elapsed) / duration) + cost > limit then
    limited = true
  end
  reply[2 * i + 1] = current
  reply[2 * i + 2] = previous
end

local creditsKey = nil
local creditsCost = 0
local balance = 0
local refillTo = nil
local c = 2 + n * 5
if ARGV[2] == '1' then
  creditsKey = KEYS[2 * n + 1]
  creditsCost = tonumber(ARGV[c + 1])
  local stored = redis.call('HMGET', creditsKey, 'remaining', 'lastRefillAt')
  -- A missing balance counts as 0 and is never created here: fail closed.
  if stored[1] then
    balance = tonumber(stored[1])
    if ARGV[c + 2] ~= '' and (tonumber(stored[2]) or 0) < tonumber(ARGV[c + 2]) then
      refillTo = stored[1]
      if balance < tonumber(ARGV[c + 3]) then
        balance = tonumber(ARGV[c + 3])
        refillTo = ARGV[c + 3]
      end
    end
  end
  reply[2] = balance
end

if limited then
  reply[1] = 1
  return reply
end
if creditsKey and creditsCost > 0 and balance < creditsCost then
  reply[1] = 2
  return reply
end

for i = 1, n do
  local a = 2 + (i - 1) * 5
  if tonumber(ARGV[a + 3]) > 0 then
    redis.call('INCRBY', KEYS[2 * i - 1], ARGV[a + 3])
    redis.call('PEXPIRE', KEYS[2 * i - 1], ARGV[a + 5])
  end
end
if refillTo then
  redis.call('HSET', creditsKey, 'remaining', refillTo, 'lastRefillAt', ARGV[c + 2])
end
if creditsKey and creditsCost > 0 then
  reply[2] = redis.call('HINCRBY', creditsKey, 'remaining', '-' .. ARGV[c + 1])
end
return reply
