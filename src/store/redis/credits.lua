-- Read-modify-write of one credits hash {remaining, lastRefillAt}, after applying a due refill (replace, not add).
-- KEYS[1]: the credits hash.
-- ARGV: [1] operation 'read' | 'set' | 'increment' | 'decrement', [2] value, [3] refill boundary ('' when none),
--       [4] refill amount, [5] now (lastRefillAt of a balance this call creates).
-- Reply: the balance afterwards; nil for 'read' of a missing balance. Other operations on a missing balance start
-- from 0. Values written are ARGV strings or HINCRBY results (see consume.lua on why).
local op = ARGV[1]
local stored = redis.call('HMGET', KEYS[1], 'remaining', 'lastRefillAt')
local remaining = tonumber(stored[1])
if not remaining then
  if op == 'read' then
    return false
  end
  redis.call('HSET', KEYS[1], 'remaining', '0', 'lastRefillAt', ARGV[5])
  remaining = 0
elseif ARGV[3] ~= '' and (tonumber(stored[2]) or 0) < tonumber(ARGV[3]) then
  redis.call('HSET', KEYS[1], 'lastRefillAt', ARGV[3])
  if remaining < tonumber(ARGV[4]) then
    redis.call('HSET', KEYS[1], 'remaining', ARGV[4])
    remaining = tonumber(ARGV[4])
  end
end

if op == 'read' then
  return remaining
elseif op == 'set' then
  redis.call('HSET', KEYS[1], 'remaining', ARGV[2])
  return tonumber(ARGV[2])
elseif op == 'increment' then
  -- REST sends balances as JSON numbers: refuse, unchanged, a balance past 2^53 - 1.
  if remaining + tonumber(ARGV[2]) > 9007199254740991 then
    return redis.error_reply('ERANGE credits balance would exceed 2^53')
  end
  return redis.call('HINCRBY', KEYS[1], 'remaining', ARGV[2])
elseif op == 'decrement' then
  if remaining <= tonumber(ARGV[2]) then
    redis.call('HSET', KEYS[1], 'remaining', '0')
    return 0
  end
  return redis.call('HINCRBY', KEYS[1], 'remaining', '-' .. ARGV[2])
end
return redis.error_reply('unknown credits operation ' .. tostring(op))
