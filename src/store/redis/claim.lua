-- Claims an idempotency key for one request fingerprint, under the workspace's own hash tag (src/store/redis/counters.ts).
-- The step's record lives under the key's counter tag; this claim is what makes a key reused with a different API key
-- (another tag) a conflict. KEYS[1]: the claim hash {fingerprint, expiresAt}. ARGV: fingerprint, expiresAt, now (unix
-- ms, the callers' clock, which judges expiry), ttl (ms, which lets Redis drop the claim whatever its own clock says).
-- Reply: 1 when the key is free (or its claim expired) or claimed for this fingerprint, 0 when claimed for another.
local claimed = redis.call('HMGET', KEYS[1], 'fingerprint', 'expiresAt')
if claimed[1] and tonumber(claimed[2]) > tonumber(ARGV[3]) then
  if claimed[1] == ARGV[1] then
    return 1
  end
  return 0
end
redis.call('HSET', KEYS[1], 'fingerprint', ARGV[1], 'expiresAt', ARGV[2])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
return 1
