package engine

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// CloseAsKilled closes the restored stores as a SIGKILL would leave them:
// with RocksDB's write-ahead log off (Kafka Streams' setting), only what
// the stores flushed is on disk (their SST files, MANIFEST, CURRENT and
// OPTIONS) and their memtables are lost, the changelog offsets of the
// memtables' writes with them (they are flushed atomically with the data).
// It waits until every store is quiet (no flush or compaction running),
// copies the application's state directory as it is on disk, closes the
// stores cleanly and puts the copy in the directory's place, so the next
// WarmRestore finds what a restart after the crash finds: offsets where
// each store last flushed, or no offset and a restore from the log start
// for a store that never flushed.
func (in *Instance) CloseAsKilled(ctx context.Context, r *Restored) error {
	for p, s := range r.Stores {
		if err := WaitSettled(ctx, s, settlePoll, settleStable, time.Minute); err != nil {
			r.Close()
			return fmt.Errorf("partition %d before the emulated SIGKILL: %w", p, err)
		}
	}
	dir := in.AppDir()
	durable := dir + ".killed"
	os.RemoveAll(durable)
	err := copyOnDisk(dir, durable)
	r.Close()
	if err != nil {
		os.RemoveAll(durable)
		return fmt.Errorf("copying the state directory as a SIGKILL leaves it: %w", err)
	}
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	in.wiped = "no committed offset on disk after the emulated SIGKILL (the store had never flushed: its memtables were lost): restored from the log start"
	return os.Rename(durable, dir)
}

// copyOnDisk copies the tree at src to dst: SST files, which RocksDB never
// changes once written, as hard links (copies where links fail), every
// other file (MANIFEST, CURRENT, OPTIONS, empty logs, a .checkpoint) as a
// copy of its bytes now.
func copyOnDisk(src, dst string) error {
	return filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return err
		}
		to := filepath.Join(dst, rel)
		switch {
		case d.IsDir():
			return os.MkdirAll(to, 0o755)
		case !d.Type().IsRegular():
			return nil
		case strings.HasSuffix(d.Name(), ".sst") && os.Link(path, to) == nil:
			return nil
		}
		return copyFile(path, to)
	})
}

// copyFile copies the bytes of the regular file src to a new file dst.
func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
