package loadgen

import (
	"bytes"
	"sync"

	"github.com/pierrec/lz4/v4"
	"github.com/twmb/franz-go/pkg/kgo"
)

// javaLz4 compresses a fill's batches into LZ4 frames as Kafka's Java
// producer writes them (KafkaLZ4BlockOutputStream): 64 KiB blocks, each
// independent, and no content checksum; kgo's default writes 4 MiB blocks
// with an xxHash32 content checksum over every byte. Both are valid Kafka
// lz4 (brokers and Java consumers read either), so a fill keeps its
// records; what changes is the work: no checksum to compute when filling
// or to verify when a restore decompresses, which at a 20 GiB fill of
// incompressible values was 10 CPU seconds of the fill's compression
// alone.
type javaLz4 struct {
	pool sync.Pool
}

func newJavaLz4() *javaLz4 {
	c := &javaLz4{}
	c.pool.New = func() any {
		w := lz4.NewWriter(nil)
		// The options are constants valid for lz4.Writer; Apply fails only
		// on a writer already written to.
		_ = w.Apply(lz4.BlockSizeOption(lz4.Block64Kb), lz4.ChecksumOption(false), lz4.CompressionLevelOption(lz4.Fast))
		return w
	}
	return c
}

// Compress implements kgo.Compressor. A batch that cannot be compressed
// (an error from the writer) goes uncompressed, as kgo's does.
func (c *javaLz4) Compress(dst *bytes.Buffer, src []byte, _ ...kgo.CompressFlag) ([]byte, kgo.CompressionCodecType) {
	w := c.pool.Get().(*lz4.Writer)
	defer c.pool.Put(w)
	w.Reset(dst)
	if _, err := w.Write(src); err != nil {
		return src, kgo.CodecNone
	}
	if err := w.Close(); err != nil {
		return src, kgo.CodecNone
	}
	return dst.Bytes(), kgo.CodecLz4
}
