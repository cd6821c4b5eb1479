// Package topicshape reads a changelog topic from its log start to its end
// and measures what a restore rate depends on besides bytes: the records per
// live key (overwrites and tombstones a restore reads but that leave no
// state), the bytes per record and the tombstone share. `plan --from-topic`
// and `report --from-topic` take a user's own changelog's shape from it, so
// their answers can say how far the measured rates were from it.
//
// The read is read_committed, as Kafka Streams restores the changelog of an
// exactly_once_v2 application (the only kind that writes transactions into
// one): aborted transactions' records are not counted, and it ends at the
// last stable offset. It answers from the whole topic or not at all: a
// topic deleted, created again, or cut below what the read had reached
// while it was read fails it, naming the topic (ErrChanged).
//
// Memory is bounded whatever the topic's size: the live keys are counted
// exactly up to MaxKeys distinct keys, and past that on a sample of the key
// space (keys whose hash has its low bits zero, halving the sample each time
// the set would grow past MaxKeys), so the records per live key stays an
// unbiased ratio over the sampled keys and the result says its sample.
//
// State reads a topic restorebench did not fill the same way, for the state
// a correct restore of it ends with: each key's last value folded into the
// digest both engines report, so `restore` of a user's own changelog is
// verified like a fill's. It keeps one entry per live key (about 40 B), up to
// MaxStateKeys, and fails past that (ErrTooManyKeys) rather than grow.
package topicshape
