package queryload

import (
	"math/rand/v2"

	"github.com/restorebench/restorebench/config"
)

// keyDraw draws the key ids a query load looks up, out of the fill's
// keys, by the load's distribution (config.QueryLoad.Keys): uniform, or
// Zipf with key id k asked in proportion to 1/(1+k)^s. The generator
// spreads key ids over the partitions by murmur2 of their bytes, so the
// hot keys of a Zipf draw fall in partitions as any others do.
type keyDraw func() int64

// newKeyDraw is q's draw over keys ids from rng.
func newKeyDraw(q config.QueryLoad, keys int64, rng *rand.Rand) keyDraw {
	if q.KeyDist() == config.KeysZipf && keys > 1 {
		z := rand.NewZipf(rng, q.Exponent(), 1, uint64(keys-1))
		return func() int64 { return int64(z.Uint64()) }
	}
	return func() int64 { return rng.Int64N(keys) }
}
