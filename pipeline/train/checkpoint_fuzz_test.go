package train

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"math/bits"
	"os"
	"path/filepath"
	"testing"
)

// FuzzReadCheckpoint feeds arbitrary bytes to ReadCheckpoint. The seeds
// are a real checkpoint written by WriteCheckpoint (with and without Adam
// moments), its truncations, and copies with a byte changed and the
// checksum recomputed, so that the fuzzer gets past the checksum. Bad
// input must give an error wrapping ErrCheckpoint, never a panic; a state
// that is read must have consistent shapes and must write and read back
// bit for bit.
func FuzzReadCheckpoint(f *testing.F) {
	dir := f.TempDir()
	for _, adam := range []bool{true, false} {
		path := filepath.Join(dir, "seed.ckpt")
		if err := WriteCheckpoint(path, testState(adam)); err != nil {
			f.Fatal(err)
		}
		good, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(good)
		for _, n := range []int{0, 7, 8, 16, 24, 60, len(good) / 2, len(good) - sha256.Size, len(good) - 1} {
			f.Add(good[:n])
		}
		// The header's length field, a byte of the gob header and a byte
		// of the arrays, each changed with the checksum made to match.
		for _, at := range []int{8, 15, 40, len(good) - sha256.Size - 5} {
			b := append([]byte(nil), good...)
			b[at] ^= 0x41
			f.Add(resum(b))
		}
	}
	work := dir
	f.Fuzz(func(t *testing.T, data []byte) {
		// ReadCheckpoint is os.Open and Stat around readCheckpoint; the
		// fuzzer calls the latter on the bytes, as writing a file per
		// input would cost more than the read itself.
		s, err := readCheckpoint(bytes.NewReader(data), int64(len(data)), "fuzz.ckpt")
		if err != nil {
			if !errors.Is(err, ErrCheckpoint) {
				t.Fatalf("error %v does not wrap ErrCheckpoint", err)
			}
			return
		}
		// Shapes, checked without trusting State.check: N·Half in full
		// 128-bit precision against the array lengths.
		hi, nh := bits.Mul64(uint64(s.N), uint64(s.Half))
		if s.N <= 0 || s.Half <= 0 || s.C <= 0 || hi != 0 || uint64(len(s.L)) != nh || uint64(len(s.R)) != nh || len(s.QLogits) != s.C {
			t.Fatalf("read a state of N = %d, d/2 = %d, C = %d with arrays of lengths %d, %d, %d",
				s.N, s.Half, s.C, len(s.L), len(s.R), len(s.QLogits))
		}
		for _, a := range [][]float32{s.ML, s.VL, s.MR, s.VR, s.BestL, s.BestR} {
			if a != nil && uint64(len(a)) != nh {
				t.Fatalf("an N x d/2 array of length %d", len(a))
			}
		}
		for _, a := range [][]float64{s.MQ, s.VQ, s.BestQ, s.BestQLogits} {
			if a != nil && len(a) != s.C {
				t.Fatalf("a length-C array of length %d", len(a))
			}
		}
		again := filepath.Join(work, "again.ckpt")
		if err := WriteCheckpoint(again, s); err != nil {
			t.Fatalf("a state that was read cannot be written: %v", err)
		}
		back, err := ReadCheckpoint(again)
		if err != nil {
			t.Fatalf("a state that was read does not read back: %v", err)
		}
		// Writing is a function of the state, so equal files mean
		// bitwise equal states (NaN included, which sameState's
		// reflect.DeepEqual would not allow in Best or LossSum).
		twice := filepath.Join(work, "twice.ckpt")
		if err := WriteCheckpoint(twice, back); err != nil {
			t.Fatal(err)
		}
		a, _ := os.ReadFile(again)
		b, _ := os.ReadFile(twice)
		if !bytes.Equal(a, b) {
			t.Fatalf("round trip changed the state")
		}
	})
}

// resum replaces the trailing SHA-256 of a checkpoint image with the sum
// of the bytes before it.
func resum(b []byte) []byte {
	if len(b) < sha256.Size {
		return b
	}
	sum := sha256.Sum256(b[:len(b)-sha256.Size])
	return append(bytes.Clone(b[:len(b)-sha256.Size]), sum[:]...)
}
