package train

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wys-project/wys/pipeline"
)

func testState(adam bool) *State {
	rng := rand.New(rand.NewPCG(1, 2))
	n, half, c := 7, 3, 4
	f32 := func() []float32 {
		a := make([]float32, n*half)
		for i := range a {
			a[i] = float32(rng.NormFloat64())
		}
		return a
	}
	f64 := func() []float64 {
		a := make([]float64, c)
		for i := range a {
			a[i] = rng.NormFloat64()
		}
		return a
	}
	s := &State{Fingerprint: "abc", N: n, Half: half, C: c, Batch: 12, Step: 12, Pairs: 3456,
		Elapsed: 1500 * time.Millisecond, L: f32(), R: f32(), QLogits: f64(), MQ: f64(), VQ: f64(),
		Best: 0.93, SinceBest: 1, BestStep: 8, BestL: f32(), BestR: f32(), BestQ: f64(), BestQLogits: f64(),
		LossSum: 2.5, LossCount: 4,
		Curve: []pipeline.CurvePoint{{Step: 4, Epoch: 0.5, Loss: 1.2, TrainAUC: 0.9, TestAUC: math.NaN(), Q: f64(), Elapsed: time.Second}}}
	if adam {
		s.ML, s.VL, s.MR, s.VR = f32(), f32(), f32(), f32()
	}
	return s
}

// sameState compares two states bit for bit (NaN equals NaN).
func sameState(a, b *State) bool {
	ca, cb := a.Curve, b.Curve
	a2, b2 := *a, *b
	a2.Curve, b2.Curve = nil, nil
	if !reflect.DeepEqual(a2, b2) || len(ca) != len(cb) {
		return false
	}
	for i := range ca {
		pa, pb := ca[i], cb[i]
		if math.Float64bits(pa.TestAUC) != math.Float64bits(pb.TestAUC) {
			return false
		}
		pa.TestAUC, pb.TestAUC = 0, 0
		if !reflect.DeepEqual(pa, pb) {
			return false
		}
	}
	return true
}

func TestCheckpointRoundTrip(t *testing.T) {
	for _, adam := range []bool{true, false} {
		dir := t.TempDir()
		path := CheckpointPath(dir)
		s := testState(adam)
		if err := WriteCheckpoint(path, s); err != nil {
			t.Fatal(err)
		}
		got, err := ReadCheckpoint(path)
		if err != nil {
			t.Fatal(err)
		}
		if !sameState(s, got) {
			t.Errorf("adam=%v: round trip changed the state:\n%+v\n%+v", adam, s, got)
		}
		if !adam && got.ML != nil {
			t.Error("nil moments came back non-nil")
		}
		// No temporary files are left.
		entries, _ := os.ReadDir(dir)
		if len(entries) != 1 {
			t.Errorf("directory holds %d files, want 1", len(entries))
		}
	}
}

// TestCheckpointBeforeAveraging reads a checkpoint in the layout written
// before tail averaging, whose header lists eight float32 arrays: built
// here from a current file by shortening its header's list (the running
// means are nil, so they take no bytes) and recomputing the checksum.
func TestCheckpointBeforeAveraging(t *testing.T) {
	path := filepath.Join(t.TempDir(), "c")
	s := testState(true)
	if err := WriteCheckpoint(path, s); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	hlen := binary.LittleEndian.Uint64(b[8:16])
	var h stateHeader
	if err := gob.NewDecoder(bytes.NewReader(b[16 : 16+hlen])).Decode(&h); err != nil {
		t.Fatal(err)
	}
	if len(h.F32Lens) != 10 || h.F32Lens[8] != -1 || h.F32Lens[9] != -1 {
		t.Fatalf("header lists float32 arrays %v; want 10, the last two nil", h.F32Lens)
	}
	h.F32Lens = h.F32Lens[:8]
	var hb bytes.Buffer
	if err := gob.NewEncoder(&hb).Encode(&h); err != nil {
		t.Fatal(err)
	}
	old := append(append(binary.LittleEndian.AppendUint64(slices.Clone(b[:8]), uint64(hb.Len())), hb.Bytes()...), b[16+hlen:len(b)-sha256.Size]...)
	sum := sha256.Sum256(old)
	if err := os.WriteFile(path, append(old, sum[:]...), 0o644); err != nil {
		t.Fatal(err)
	}
	got, err := ReadCheckpoint(path)
	if err != nil {
		t.Fatal(err)
	}
	if !sameState(s, got) {
		t.Errorf("old layout read as\n%+v\nwant\n%+v", got, s)
	}
}

func TestCheckpointDamaged(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "c")
	if err := WriteCheckpoint(path, testState(true)); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	cases := []struct {
		name, want string
		data       []byte
	}{
		{"truncated", "truncated or corrupted", good[:len(good)-40]},
		{"short", "too short", good[:10]},
		{"flipped", "checksum mismatch", func() []byte {
			b := append([]byte(nil), good...)
			b[len(b)-100] ^= 1
			return b
		}()},
		{"version", "format version 2", func() []byte {
			b := append([]byte(nil), good...)
			b[7] = 2
			return b
		}()},
		{"foreign", "not a wys checkpoint", append([]byte("PK\x03\x04 a zip file, not ours"), make([]byte, 64)...)},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			p := filepath.Join(dir, c.name)
			if err := os.WriteFile(p, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := ReadCheckpoint(p)
			if !errors.Is(err, ErrCheckpoint) || !strings.Contains(err.Error(), c.want) {
				t.Errorf("got %v, want ErrCheckpoint mentioning %q", err, c.want)
			}
		})
	}
	if _, err := ReadCheckpoint(filepath.Join(dir, "absent")); err == nil || !strings.Contains(err.Error(), "no such file") {
		t.Errorf("missing file: %v", err)
	}
}

func TestCheckpointRejectsBadShapes(t *testing.T) {
	s := testState(true)
	s.MR = s.MR[:5]
	if err := WriteCheckpoint(filepath.Join(t.TempDir(), "c"), s); err == nil {
		t.Error("wrote a state with a short moment array")
	}
}

func TestCheckpointFingerprint(t *testing.T) {
	g, err := pipeline.PlantedPartition(60, 3, 0.3, 0.02, 1)
	if err != nil {
		t.Fatal(err)
	}
	g2, _ := pipeline.PlantedPartition(60, 3, 0.3, 0.02, 2)
	split := &pipeline.Split{N: 60, Train: []pipeline.Pair{{U: 0, V: 1}}, TrainNeg: []pipeline.Pair{{U: 0, V: 50}}}
	base := Config{Dim: 16, Epochs: 5, Seed: 3}
	fp := Fingerprint(g, split, base)
	same := []Config{
		{Dim: 16, Epochs: 5, Seed: 3, Workers: 7, MemoryLimit: 1 << 30}, // workers do not change results
		{Dim: 16, Epochs: 5, Seed: 3, BatchWalks: 256},                  // the default, spelt out
	}
	for _, c := range same {
		if Fingerprint(g, split, c) != fp {
			t.Errorf("%+v changed the fingerprint", c)
		}
	}
	differ := []Config{
		{Dim: 16, Epochs: 6, Seed: 3},
		{Dim: 16, Epochs: 5, Seed: 4},
		{Dim: 18, Epochs: 5, Seed: 3},
		{Dim: 16, Epochs: 5, Seed: 3, FixedQ: []float64{1, 1, 1, 1, 1, 1, 1, 1, 1, 1}},
	}
	for _, c := range differ {
		if Fingerprint(g, split, c) == fp {
			t.Errorf("%+v kept the fingerprint", c)
		}
	}
	if Fingerprint(g2, split, base) == fp {
		t.Error("another graph kept the fingerprint")
	}
	if Fingerprint(g, &pipeline.Split{N: 60, Train: []pipeline.Pair{{U: 0, V: 2}}, TrainNeg: []pipeline.Pair{{U: 0, V: 50}}}, base) == fp {
		t.Error("other evaluation pairs kept the fingerprint")
	}
}
