-- Claims an idempotency key for one request fingerprint, under the workspace's own hash tag (src/store/redis/counters.ts).
-- The step's record lives under the key's counter tag; this claim is what makes a key reused with a different API key
-- (another tag) a conflict. KEYS[1]: the claim. ARGV: fingerprint, expiresAt (unix ms).
-- Reply: 1 when the key is free or already claimed for this fingerprint, 0 when claimed for another.
local claimed = redis.call('GET', KEYS[1])
if claimed then
  if claimed == ARGV[1] then
    return 1
  end
  return 0
end
redis.call('SET', KEYS[1], ARGV[1], 'PXAT', ARGV[2])
return 1
