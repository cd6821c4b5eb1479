package cluster

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/restorebench/restorebench/internal/atomicfile"
	"github.com/restorebench/restorebench/internal/filelock"
	"github.com/restorebench/restorebench/internal/poll"
)

// HoldLag is the min.compaction.lag.ms a cleaner hold sets: Kafka's
// largest (math.MaxInt64). The log cleaner leaves a segment alone while its
// newest record is younger than now − min.compaction.lag.ms, and with this
// lag every segment is, whatever its records' timestamps.
const HoldLag = "9223372036854775807"

// A topic's min.compaction.lag.ms can hold one value, so it cannot say
// how many runs hold the cleaner on the topic, nor what the topic's own
// setting was before the first of them: a second run that read HoldLag
// and took it for "no setting of its own" released the first run's hold
// under it (its restores then ran unheld while its record said held) and
// lost the topic's own setting at the end. So holds are recorded outside
// the topic, in a HoldBook, and reference-counted:
//
//   - <book>/<topic>.json records the topic's own setting while any hold
//     is on it, written before the hold alters the topic and removed only
//     after the last release has put the setting back;
//   - <book>/<topic>.holders/ has a file per live hold, flocked by the
//     holding process for as long as it holds: the kernel drops the lock
//     when the process dies, however it dies, so a hold left by a killed
//     run is told from a live one exactly (no pid that could be reused,
//     no timeout that could be wrong);
//   - <book>/<topic>.lock is flocked while one hold or release reads and
//     changes the above and the topic's setting.
//
// A second hold joins the first (the topic stays held, the record keeps
// the topic's own setting); a release leaves the topic held while another
// live hold remains, and the last one puts the recorded setting back
// exactly. A killed run's record is found by the next hold, which takes
// the topic's own setting from it.
//
// The book is the data directory's (<data-dir>/holds/<cluster id>): a
// fill's topic is shared only by runs of one data directory, whose
// manifest says what it holds (another data directory finds no manifest
// and refuses the topic). A topic at HoldLag that the book has no record
// of and that the caller did not just create held is refused, because its
// own setting is unknown: another data directory's run may be holding it,
// or a restorebench that kept no book was killed holding it; the error
// says how to put the setting back by hand.

// HoldBook is where a data directory records its cleaner holds on one
// cluster's topics (see above).
type HoldBook struct{ dir string }

// HoldBookIn is the book kept in dir (<data-dir>/holds/<cluster id>).
func HoldBookIn(dir string) HoldBook { return HoldBook{dir: dir} }

// holdRecord is <book>/<topic>.json.
type holdRecord struct {
	Topic string `json:"topic"`
	// Previous is the topic's own min.compaction.lag.ms before the first
	// hold, "" for none (the broker's default).
	Previous string    `json:"previous"`
	Since    time.Time `json:"since"`
}

// CleanerHold is a changelog topic whose log cleaner is held
// (HoldCleaner): Kafka compacts none of its segments until the last hold
// on it is released.
type CleanerHold struct {
	Topic string
	// Previous is the topic's own min.compaction.lag.ms before the first
	// hold on it, or "" when the topic had none (the broker's default
	// applied), and so the last release removes the hold's setting
	// instead of restoring one.
	Previous string
	// Joined is how many other live holds this one joined (0: the first).
	Joined int
	adm    *kadm.Client
	book   HoldBook
	holder *os.File
}

// HoldCleaner stops Kafka's log cleaner from changing topic until the
// last hold on it is released, by setting the topic's
// min.compaction.lag.ms to HoldLag (an incremental alter: the topic's
// other settings stay). Restores made during the hold read the same
// records, which compares them fairly; a compaction already under way
// when the hold is set still completes.
//
// created says the caller has just created topic held (a fill's topic is
// created at HoldLag, so the cleaner does not compact it while the fill
// writes it): its own setting is then none. Otherwise a topic at HoldLag
// is taken over only from a hold this book records (a live one, joined, or
// a killed run's), and refused without one.
func HoldCleaner(ctx context.Context, adm *kadm.Client, topic string, book HoldBook, created bool) (*CleanerHold, error) {
	fail := func(err error) (*CleanerHold, error) {
		return nil, fmt.Errorf("hold the log cleaner on %s: %w", topic, err)
	}
	unlock, err := book.lock(ctx, topic)
	if err != nil {
		return fail(err)
	}
	defer unlock()
	live, err := book.liveHolders(topic)
	if err != nil {
		return fail(err)
	}
	rec, err := book.read(topic)
	if err != nil {
		return fail(err)
	}
	cur, err := TopicOverride(ctx, adm, topic, "min.compaction.lag.ms")
	if err != nil {
		return fail(err)
	}
	h := &CleanerHold{Topic: topic, Joined: live, adm: adm, book: book}
	switch {
	case cur != HoldLag:
		// Not held now: what the topic has is its own setting, whatever a
		// record left by a killed run says (someone set it back since).
		h.Previous = cur
	case rec != nil:
		h.Previous = rec.Previous
	case created:
		h.Previous = ""
	default:
		return fail(book.unknownHold(topic))
	}
	if rec == nil || rec.Previous != h.Previous {
		if err := book.write(holdRecord{Topic: topic, Previous: h.Previous, Since: time.Now().UTC()}); err != nil {
			return fail(err)
		}
	}
	if h.holder, err = book.addHolder(topic); err != nil {
		return fail(err)
	}
	if cur != HoldLag {
		if err := h.alter(ctx, kadm.SetConfig, HoldLag); err != nil {
			h.dropHolder()
			if live == 0 {
				book.remove(topic) // the topic is as it was
			}
			return fail(err)
		}
	}
	return h, nil
}

// Release ends this hold. While other live holds remain the topic stays
// held for them (others says how many); the last release puts the topic's
// own min.compaction.lag.ms back exactly as it was before the first hold
// (as the record has it), and the cleaner compacts the topic again.
func (h *CleanerHold) Release(ctx context.Context) (others int, err error) {
	if h.holder == nil {
		return 0, nil
	}
	fail := func(err error) (int, error) {
		return others, fmt.Errorf("release the log cleaner hold on %s (set min.compaction.lag.ms back by hand: %s): %w", h.Topic, h.setBack(), err)
	}
	unlock, err := h.book.lock(ctx, h.Topic)
	if err != nil {
		return fail(err)
	}
	defer unlock()
	h.dropHolder()
	if others, err = h.book.liveHolders(h.Topic); err != nil || others > 0 {
		return others, err
	}
	if rec, err := h.book.read(h.Topic); err == nil && rec != nil {
		h.Previous = rec.Previous
	}
	if h.Previous == "" {
		err = h.alter(ctx, kadm.DeleteConfig, "")
	} else {
		err = h.alter(ctx, kadm.SetConfig, h.Previous)
	}
	if err != nil {
		return fail(err) // the record stays: the next hold knows the topic's own setting
	}
	return 0, h.book.remove(h.Topic)
}

// setBack says how to put the topic's own setting back by hand.
func (h *CleanerHold) setBack() string {
	if h.Previous == "" {
		return "remove it, the topic had none"
	}
	return "the topic's own was " + h.Previous
}

// dropHolder ends this hold's lock and removes its file.
func (h *CleanerHold) dropHolder() {
	name := h.holder.Name()
	h.holder.Close()
	os.Remove(name)
	h.holder = nil
}

func (h *CleanerHold) alter(ctx context.Context, op kadm.IncrementalOp, value string) error {
	c := kadm.AlterConfig{Op: op, Name: "min.compaction.lag.ms"}
	if op == kadm.SetConfig {
		c.Value = kadm.StringPtr(value)
	}
	resp, err := h.adm.AlterTopicConfigs(ctx, []kadm.AlterConfig{c}, h.Topic)
	if err != nil {
		return err
	}
	for _, r := range resp {
		if r.Err != nil {
			return r.Err
		}
	}
	return nil
}

// unknownHold is the refusal of a topic at HoldLag with no hold recorded.
func (b HoldBook) unknownHold(topic string) error {
	return fmt.Errorf("its min.compaction.lag.ms is already %s, the hold's value, and %s records no hold on it: another "+
		"restorebench run (with another --data-dir, or on another host) may be holding it, or one was "+
		"killed holding it before it kept this record. "+
		"Its own setting is not known, so this run could not put it back. If no run is holding it, put its setting back by hand "+
		"(kafka-configs.sh --bootstrap-server <brokers> --entity-type topics --entity-name %s --alter --delete-config "+
		"min.compaction.lag.ms, or --add-config min.compaction.lag.ms=<its own value>) and run again",
		HoldLag, b.dir, topic)
}

// lock flocks <book>/<topic>.lock, waiting while another hold or release
// of the topic has it (for ctx at most), and returns its unlock.
func (b HoldBook) lock(ctx context.Context, topic string) (func(), error) {
	if err := os.MkdirAll(b.dir, 0o755); err != nil {
		return nil, err
	}
	var l *filelock.Lock
	err := poll.UntilTime(ctx, 20*time.Millisecond, time.Time{}, "", func(context.Context) (bool, error) {
		var err error
		if l, err = filelock.TryLock(filepath.Join(b.dir, topic+".lock")); errors.Is(err, filelock.ErrHeld) {
			return false, nil
		}
		return err == nil, err
	})
	if err != nil {
		return nil, err
	}
	return l.Unlock, nil
}

func (b HoldBook) holders(topic string) string { return filepath.Join(b.dir, topic+".holders") }

// addHolder creates and flocks this hold's file.
func (b HoldBook) addHolder(topic string) (*os.File, error) {
	dir := b.holders(topic)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var r [6]byte
	rand.Read(r[:])
	f, err := os.OpenFile(filepath.Join(dir, strconv.Itoa(os.Getpid())+"-"+hex.EncodeToString(r[:])), os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return nil, err
	}
	l, err := filelock.TryLockFile(f)
	if err != nil {
		os.Remove(f.Name())
		return nil, err
	}
	return l.File(), nil // closing it drops the lock
}

// liveHolders counts the topic's holds whose process still holds its
// file's lock, removing the files of holds whose process is gone.
func (b HoldBook) liveHolders(topic string) (int, error) {
	dir := b.holders(topic)
	ents, err := os.ReadDir(dir)
	if errors.Is(err, os.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	live := 0
	for _, e := range ents {
		path := filepath.Join(dir, e.Name())
		f, err := os.OpenFile(path, os.O_RDWR, 0)
		if err != nil {
			continue // removed meanwhile
		}
		l, err := filelock.TryLockFile(f)
		switch {
		case err == nil: // its process is gone: a killed run's hold
			os.Remove(path)
			l.Unlock()
		case errors.Is(err, filelock.ErrHeld):
			live++
		default:
			return 0, err
		}
	}
	return live, nil
}

func (b HoldBook) record(topic string) string { return filepath.Join(b.dir, topic+".json") }

// read is the topic's hold record, nil without one.
func (b HoldBook) read(topic string) (*holdRecord, error) {
	data, err := os.ReadFile(b.record(topic))
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var rec holdRecord
	if err := json.Unmarshal(data, &rec); err != nil || rec.Topic != topic {
		return nil, fmt.Errorf("hold record %s is broken (%v): remove it once the topic's min.compaction.lag.ms is its own again", b.record(topic), err)
	}
	return &rec, nil
}

func (b HoldBook) write(rec holdRecord) error {
	data, err := json.MarshalIndent(rec, "", "  ")
	if err != nil {
		return err
	}
	return atomicfile.Write(b.record(rec.Topic), append(data, '\n'))
}

func (b HoldBook) remove(topic string) error {
	if err := os.Remove(b.record(topic)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	return nil
}

// TopicOverride returns topic's own setting of name (set on the topic,
// not inherited from the broker), or "" when it has none.
func TopicOverride(ctx context.Context, adm *kadm.Client, topic, name string) (string, error) {
	rcs, err := adm.DescribeTopicConfigs(ctx, topic)
	if err != nil {
		return "", err
	}
	rc, err := rcs.On(topic, nil)
	if err != nil {
		return "", err
	}
	if rc.Err != nil {
		return "", rc.Err
	}
	for _, c := range rc.Configs {
		if c.Key == name && c.Source == kmsg.ConfigSourceDynamicTopicConfig && c.Value != nil {
			return *c.Value, nil
		}
	}
	return "", nil
}
