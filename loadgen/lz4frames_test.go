package loadgen

import (
	"bytes"
	"testing"

	"github.com/twmb/franz-go/pkg/kgo"
)

// batchOfValues is about a fill batch's worth (1 MB) of the generator's
// values: incompressible bytes, as the large profile's.
func batchOfValues(tb testing.TB) []byte {
	s := DefaultSpec()
	s.Records, s.Keys, s.ValueMin, s.ValueMax, s.Partitions = 1000, 1000, 500, 1500, 1
	g, err := NewGenerator(s)
	if err != nil {
		tb.Fatal(err)
	}
	var out []byte
	for len(out) < 1<<20 {
		r, ok := g.Next()
		if !ok {
			g.next, g.written = 0, 0
			continue
		}
		out = append(append(out, r.Key...), r.Value...)
	}
	return out
}

// TestJavaLz4FramesReadBack: the fill's lz4 frames decompress, through
// kgo's own decompressor (the model's restore reads them so), to the batch
// that was compressed, and carry no content checksum, as Kafka's Java
// producer writes them (FLG bit 2 clear, 64 KiB blocks in BD).
func TestJavaLz4FramesReadBack(t *testing.T) {
	src := batchOfValues(t)
	var dst bytes.Buffer
	out, codec := newJavaLz4().Compress(&dst, src)
	if codec != kgo.CodecLz4 {
		t.Fatalf("codec %v, want lz4", codec)
	}
	if flg, bd := out[4], out[5]; flg&0x04 != 0 || bd>>4&0x7 != 4 {
		t.Fatalf("frame FLG %08b BD %08b: want no content checksum and 64 KiB blocks", flg, bd)
	}
	back, err := kgo.DefaultDecompressor().Decompress(out, kgo.CodecLz4)
	if err != nil || !bytes.Equal(back, src) {
		t.Fatalf("decompressed %d bytes (err %v), want the %d compressed", len(back), err, len(src))
	}
}

// BenchmarkLz4Batch compresses one 1 MB fill batch, and decompresses it
// as a restore does, in the frames the fill writes (java) and in kgo's
// default frames (4 MiB blocks, content checksum).
func BenchmarkLz4Batch(b *testing.B) {
	src := batchOfValues(b)
	compressors := map[string]kgo.Compressor{"java": newJavaLz4()}
	var err error
	if compressors["kgo"], err = kgo.DefaultCompressor(kgo.Lz4Compression()); err != nil {
		b.Fatal(err)
	}
	for _, name := range []string{"java", "kgo"} {
		c := compressors[name]
		var dst bytes.Buffer
		b.Run(name+"/compress", func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				dst.Reset()
				c.Compress(&dst, src)
			}
		})
		dst.Reset()
		frame, _ := c.Compress(&dst, src)
		frame = append([]byte(nil), frame...)
		d := kgo.DefaultDecompressor()
		b.Run(name+"/decompress", func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if _, err := d.Decompress(frame, kgo.CodecLz4); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
