package train

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/wys-project/wys/internal/atomicfile"
	"github.com/wys-project/wys/pipeline"
)

// ErrCheckpoint reports a checkpoint file that cannot be used: truncated,
// corrupted, of another format version, or written by a different run.
var ErrCheckpoint = errors.New("train: unusable checkpoint")

// ErrNotSaved reports that the checkpoint a cancelled run saves on its
// way out failed (a full disk, say); the error joins it to the context's.
// The checkpoint saved before it, if any, is whole.
var ErrNotSaved = errors.New("checkpoint not saved")

// CheckpointFile is the name of the checkpoint inside a checkpoint
// directory. Each save replaces it atomically, so the directory always
// holds one complete checkpoint.
const CheckpointFile = "wys.ckpt"

// checkpointMagic starts every checkpoint file; the last byte is the
// format version.
var checkpointMagic = [8]byte{'W', 'Y', 'S', 'C', 'K', 'P', 'T', 1}

// State is the complete state of the sparse trainer between two
// minibatches: restoring it and running the remaining batches gives
// bit-for-bit the result of an uninterrupted run, because every random
// choice of batch b comes from a stream derived from (seed, b) and the
// evaluation subsamples are drawn again from the seed.
//
// Slices are N x Half row-major (L, R and their moments) or of length C
// (q and its moments). Moments that the optimiser does not use are nil.
type State struct {
	// Fingerprint identifies the run that wrote the state (see
	// Fingerprint); a state only resumes the same run.
	Fingerprint string
	// N, Half and C are the shapes: nodes, width of each side, powers.
	N, Half, C int

	// Batch is the number of minibatches done: the run continues with
	// batch index Batch. Step is the optimiser's step counter (Adam's bias
	// correction), Pairs the positive pairs processed so far.
	Batch, Step, Pairs int64
	// Elapsed is the training time before this state was saved; a resumed
	// run adds its own.
	Elapsed time.Duration

	// Parameters.
	L, R    []float32
	QLogits []float64
	// Optimiser state: Adam moments of L and R (nil for SGD and
	// PercentDelta; for RMSProp, ML and MR are nil; for RowRMS, ML and MR
	// are nil and VL and VR hold one second moment per row) and of the
	// attention logits q.
	ML, VL, MR, VR []float32
	MQ, VQ         []float64

	// Model selection: the best train AUC so far, evaluations since it,
	// and the snapshot taken at it (BestStep, BestL, BestR, BestQ,
	// BestQLogits; nil before the first evaluation).
	Best                float64
	SinceBest, BestStep int
	BestL, BestR        []float32
	BestQ, BestQLogits  []float64
	// LossSum and LossCount accumulate the batch losses since the last
	// evaluation; Curve holds the evaluations so far.
	LossSum   float64
	LossCount int
	Curve     []pipeline.CurvePoint
	// Total is the run's length in batches (shorter than planned once a
	// converged run anneals or an early stop ends it; a run the time
	// budget stopped keeps its length, for a longer budget to go on
	// toward); AnnealFrom, when
	// positive, is the batch where annealing started, at the learning
	// rate AnnealLR.
	Total, AnnealFrom int64
	AnnealLR          float64
	// AvgL and AvgR are the running means of L and R over the AvgN
	// snapshots of tail averaging so far (nil and 0 without averaging,
	// or before its first snapshot; see Config.Average).
	AvgL, AvgR []float32
	AvgN       int
	// Settings are the run's fingerprinted settings and graph shape as
	// sorted "name=value" lines ("epochs=300", "graph.nodes=9877", …), so
	// that a mismatch can say what differs.
	Settings []string
}

// stateHeader is the gob-encoded part of a checkpoint: the scalars, the
// curve, and the length of every array that follows in raw form.
type stateHeader struct {
	Fingerprint         string
	N, Half, C          int
	Batch, Step, Pairs  int64
	Elapsed             time.Duration
	Best                float64
	SinceBest, BestStep int
	LossSum             float64
	LossCount           int
	Curve               []pipeline.CurvePoint
	Total, AnnealFrom   int64
	AnnealLR            float64
	AvgN                int
	Settings            []string
	F32Lens             []int // L, R, ML, VL, MR, VR, BestL, BestR, AvgL, AvgR
	F64Lens             []int // QLogits, MQ, VQ, BestQ, BestQLogits
}

func (s *State) f32() []*[]float32 {
	return []*[]float32{&s.L, &s.R, &s.ML, &s.VL, &s.MR, &s.VR, &s.BestL, &s.BestR, &s.AvgL, &s.AvgR}
}

func (s *State) f64() []*[]float64 {
	return []*[]float64{&s.QLogits, &s.MQ, &s.VQ, &s.BestQ, &s.BestQLogits}
}

// check reports inconsistent shapes.
func (s *State) check() error {
	if s.N <= 0 || s.Half <= 0 || s.C <= 0 || s.N > math.MaxInt/s.Half {
		return fmt.Errorf("shape N = %d, d/2 = %d, C = %d", s.N, s.Half, s.C)
	}
	nh := s.N * s.Half
	if len(s.L) != nh || len(s.R) != nh || len(s.QLogits) != s.C {
		return fmt.Errorf("parameters of lengths %d, %d, %d for N = %d, d/2 = %d, C = %d", len(s.L), len(s.R), len(s.QLogits), s.N, s.Half, s.C)
	}
	for _, p := range []*[]float32{&s.ML, &s.MR, &s.BestL, &s.BestR, &s.AvgL, &s.AvgR} {
		if *p != nil && len(*p) != nh {
			return fmt.Errorf("an N x d/2 array has length %d, want %d", len(*p), nh)
		}
	}
	// VL and VR are Adam's or RMSProp's N x d/2 second moments, or
	// RowRMS's one per row (then without first moments).
	for _, p := range []*[]float32{&s.VL, &s.VR} {
		if *p != nil && len(*p) != nh && (s.ML != nil || len(*p) != s.N) {
			return fmt.Errorf("a second-moment array has length %d, want %d (Adam, rmsprop) or %d (rowrms)", len(*p), nh, s.N)
		}
	}
	for _, p := range []*[]float64{&s.MQ, &s.VQ, &s.BestQ, &s.BestQLogits} {
		if *p != nil && len(*p) != s.C {
			return fmt.Errorf("a length-C array has length %d, want %d", len(*p), s.C)
		}
	}
	if s.AvgN < 0 || (s.AvgN > 0) != (s.AvgL != nil && s.AvgR != nil) {
		return fmt.Errorf("%d averaging snapshots with running means of lengths %d and %d", s.AvgN, len(s.AvgL), len(s.AvgR))
	}
	if s.Batch < 0 || s.Step < 0 || s.Pairs < 0 || s.Total < 0 || s.AnnealFrom < 0 {
		return fmt.Errorf("negative counters")
	}
	if s.Total > 0 && (s.Batch > s.Total || s.AnnealFrom > s.Total) {
		return fmt.Errorf("batch %d or annealing start %d past the run's %d batches", s.Batch, s.AnnealFrom, s.Total)
	}
	return nil
}

// WriteCheckpoint saves s to path atomically (temporary file in the same
// directory, fsync, rename): an interrupted save leaves the previous
// checkpoint in place.
//
// Format (version 1): the 8 bytes "WYSCKPT\x01"; a little-endian uint64
// length and that many bytes of gob-encoded header (scalars, curve and the
// array lengths); the float32 arrays L, R, ML, VL, MR, VR, BestL, BestR,
// AvgL, AvgR (a header that lists only the first eight, written before
// tail averaging, reads with AvgL and AvgR nil) and then the float64
// arrays QLogits, MQ, VQ, BestQ, BestQLogits, raw
// little-endian; finally the SHA-256 of every preceding byte.
func WriteCheckpoint(path string, s *State) error {
	if err := s.check(); err != nil {
		return fmt.Errorf("train: checkpoint %s: %v", path, err)
	}
	h := stateHeader{Fingerprint: s.Fingerprint, N: s.N, Half: s.Half, C: s.C, Batch: s.Batch, Step: s.Step, Pairs: s.Pairs,
		Elapsed: s.Elapsed, Best: s.Best, SinceBest: s.SinceBest, BestStep: s.BestStep, LossSum: s.LossSum,
		LossCount: s.LossCount, Curve: s.Curve, Total: s.Total, AnnealFrom: s.AnnealFrom, AnnealLR: s.AnnealLR, AvgN: s.AvgN, Settings: s.Settings}
	for _, p := range s.f32() {
		h.F32Lens = append(h.F32Lens, lenOrNil(len(*p), *p == nil))
	}
	for _, p := range s.f64() {
		h.F64Lens = append(h.F64Lens, lenOrNil(len(*p), *p == nil))
	}
	var hb bytes.Buffer
	if err := gob.NewEncoder(&hb).Encode(&h); err != nil {
		return fmt.Errorf("train: checkpoint %s: %w", path, err)
	}
	return atomicfile.Write(path, func(w io.Writer) error {
		sum := sha256.New()
		mw := io.MultiWriter(w, sum)
		buf := make([]byte, 0, 1<<16)
		buf = append(buf, checkpointMagic[:]...)
		buf = binary.LittleEndian.AppendUint64(buf, uint64(hb.Len()))
		buf = append(buf, hb.Bytes()...)
		flush := func() error {
			_, err := mw.Write(buf)
			buf = buf[:0]
			return err
		}
		for _, p := range s.f32() {
			for _, x := range *p {
				buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(x))
				if len(buf) >= 1<<16 {
					if err := flush(); err != nil {
						return err
					}
				}
			}
		}
		for _, p := range s.f64() {
			for _, x := range *p {
				buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(x))
				if len(buf) >= 1<<16 {
					if err := flush(); err != nil {
						return err
					}
				}
			}
		}
		if err := flush(); err != nil {
			return err
		}
		_, err := w.Write(sum.Sum(nil))
		return err
	})
}

// lenOrNil encodes a nil slice as −1, so that nil and empty survive a
// round trip.
func lenOrNil(n int, isNil bool) int {
	if isNil {
		return -1
	}
	return n
}

// ReadCheckpoint loads a checkpoint written by WriteCheckpoint. A file
// that is truncated, corrupted (checksum mismatch) or of another version
// gives an error wrapping ErrCheckpoint.
func ReadCheckpoint(path string) (*State, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("train: %w (check the checkpoint path)", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("train: %w", err)
	}
	return readCheckpoint(f, st.Size(), path)
}

// readCheckpoint reads the checkpoint image of size bytes in f; path
// names it in errors.
//
// It is longer than 80 lines because it checks the file's parts in the
// order they are laid out, each with its own error.
func readCheckpoint(f io.ReaderAt, size int64, path string) (*State, error) {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: %s: %s", ErrCheckpoint, path, fmt.Sprintf(format, args...))
	}
	if size < int64(len(checkpointMagic))+8+sha256.Size {
		return nil, bad("file too short (%d bytes)", size)
	}
	sum := sha256.New()
	r := &hashReader{r: bufio.NewReaderSize(io.NewSectionReader(f, 0, size-sha256.Size), int(min(size, 1<<20))), h: sum}
	var head [16]byte
	if _, err := io.ReadFull(r, head[:]); err != nil {
		return nil, bad("%v", err)
	}
	if !bytes.Equal(head[:7], checkpointMagic[:7]) {
		return nil, bad("not a wys checkpoint")
	}
	if head[7] != checkpointMagic[7] {
		return nil, bad("format version %d, this build reads version %d", head[7], checkpointMagic[7])
	}
	hlen := binary.LittleEndian.Uint64(head[8:])
	if hlen > uint64(size) {
		return nil, bad("truncated or corrupted (a header of %d bytes in a file of %d)", hlen, size)
	}
	hb := make([]byte, hlen)
	if _, err := io.ReadFull(r, hb); err != nil {
		return nil, bad("truncated header: %v", err)
	}
	var h stateHeader
	if err := gob.NewDecoder(bytes.NewReader(hb)).Decode(&h); err != nil {
		return nil, bad("header: %v", err)
	}
	s := &State{Fingerprint: h.Fingerprint, N: h.N, Half: h.Half, C: h.C, Batch: h.Batch, Step: h.Step, Pairs: h.Pairs,
		Elapsed: h.Elapsed, Best: h.Best, SinceBest: h.SinceBest, BestStep: h.BestStep, LossSum: h.LossSum,
		LossCount: h.LossCount, Curve: h.Curve, Total: h.Total, AnnealFrom: h.AnnealFrom, AnnealLR: h.AnnealLR, AvgN: h.AvgN, Settings: h.Settings}
	f32, f64 := s.f32(), s.f64()
	if len(h.F32Lens) == len(f32)-2 {
		// Written before tail averaging: no running means.
		h.F32Lens = append(h.F32Lens, -1, -1)
	}
	if len(h.F32Lens) != len(f32) || len(h.F64Lens) != len(f64) {
		return nil, bad("header lists %d + %d arrays, want %d + %d", len(h.F32Lens), len(h.F64Lens), len(f32), len(f64))
	}
	// Check the lengths against the file size before allocating.
	// Each length is bounded by the file size first, so that the sum
	// cannot overflow into a match.
	need := int64(len(head)) + int64(hlen) + sha256.Size
	for _, n := range append(slices.Clone(h.F32Lens), h.F64Lens...) {
		if n < -1 || int64(n) > size {
			return nil, bad("an array of length %d in a file of %d bytes (truncated or corrupted)", n, size)
		}
	}
	for _, n := range h.F32Lens {
		need += 4 * int64(max(n, 0))
	}
	for _, n := range h.F64Lens {
		need += 8 * int64(max(n, 0))
	}
	if need != size {
		return nil, bad("file has %d bytes, its header describes %d (truncated or corrupted)", size, need)
	}
	var word [8]byte
	for i, p := range f32 {
		if h.F32Lens[i] < 0 {
			continue
		}
		a := make([]float32, h.F32Lens[i])
		for j := range a {
			if _, err := io.ReadFull(r, word[:4]); err != nil {
				return nil, bad("%v", err)
			}
			a[j] = math.Float32frombits(binary.LittleEndian.Uint32(word[:4]))
		}
		*p = a
	}
	for i, p := range f64 {
		if h.F64Lens[i] < 0 {
			continue
		}
		a := make([]float64, h.F64Lens[i])
		for j := range a {
			if _, err := io.ReadFull(r, word[:]); err != nil {
				return nil, bad("%v", err)
			}
			a[j] = math.Float64frombits(binary.LittleEndian.Uint64(word[:]))
		}
		*p = a
	}
	want := make([]byte, sha256.Size)
	if _, err := f.ReadAt(want, size-sha256.Size); err != nil {
		return nil, bad("%v", err)
	}
	if !bytes.Equal(sum.Sum(nil), want) {
		return nil, bad("checksum mismatch (the file is corrupted)")
	}
	if err := s.check(); err != nil {
		return nil, bad("%v", err)
	}
	return s, nil
}

// hashReader hashes what it reads.
type hashReader struct {
	r io.Reader
	h hash.Hash
}

func (r *hashReader) Read(p []byte) (int, error) {
	n, err := r.r.Read(p)
	r.h.Write(p[:n])
	return n, err
}

// Fingerprint identifies a training run for resuming: a SHA-256
// over the training graph (its adjacency arrays), the evaluation pairs of
// eval (which may be nil) and every setting of cfg that changes the
// trajectory. Workers and MemoryLimit are left out (results do not depend
// on them), so a run may resume on another machine with other workers.
func Fingerprint(g *pipeline.Graph, eval *pipeline.Split, cfg Config) string {
	h := sha256.New()
	cfg = fingerprinted(g, cfg)
	fmt.Fprintf(h, "config %+v\n", cfg)
	r, c := g.Adj.Dims()
	fmt.Fprintf(h, "graph %d %d %d directed=%v\n", r, c, g.Adj.NNZ(), g.Directed)
	var b [8]byte
	for _, x := range g.Adj.Indptr {
		binary.LittleEndian.PutUint64(b[:], uint64(x))
		h.Write(b[:])
	}
	for _, x := range g.Adj.Indices {
		binary.LittleEndian.PutUint32(b[:4], uint32(x))
		h.Write(b[:4])
	}
	for _, x := range g.Adj.Data {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(x))
		h.Write(b[:])
	}
	if eval != nil {
		lists := [][]pipeline.Pair{eval.Train, eval.TrainNeg, eval.Test, eval.TestNeg, eval.TestDirectedNeg}
		if eval.HasValidation() { // a split without them hashes as before
			lists = append(lists, eval.Val, eval.ValNeg)
		}
		for _, ps := range lists {
			fmt.Fprintf(h, "pairs %d\n", len(ps))
			for _, p := range ps {
				binary.LittleEndian.PutUint32(b[:4], uint32(p.U))
				binary.LittleEndian.PutUint32(b[4:], uint32(p.V))
				h.Write(b[:])
			}
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

// fingerprinted returns cfg resolved for g without the settings that do
// not change the result (workers, memory limit, checkpointing).
func fingerprinted(g *pipeline.Graph, cfg Config) Config {
	cfg = cfg.Resolve(g.N(), g.Adj.NNZ())
	cfg.Workers, cfg.MemoryLimit = 0, 0
	cfg.Checkpoint, cfg.CheckpointEvery, cfg.Resume = nil, 0, nil
	// The time budget ends a run, by the training time before a resume
	// and after it, without changing a batch: a run stopped by a
	// scheduler resumes with a longer -time.
	cfg.TimeBudget = 0
	return cfg
}

// settingsOf lists the fingerprinted settings of a run on g as sorted
// "name=value" lines, by their JSON names (nested ones as "objective.C"),
// with the graph's shape.
func settingsOf(g *pipeline.Graph, cfg Config) []string {
	m := settingsMap(g, cfg)
	out := make([]string, 0, len(m))
	for k, v := range m {
		out = append(out, k+"="+v)
	}
	slices.Sort(out)
	return out
}

func settingsMap(g *pipeline.Graph, cfg Config) map[string]string {
	out := map[string]string{"graph.nodes": fmt.Sprint(g.N()), "graph.arcs": fmt.Sprint(g.Adj.NNZ()),
		"graph.directed": fmt.Sprint(g.Directed)}
	b, err := json.Marshal(fingerprinted(g, cfg))
	if err != nil {
		return out
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return out
	}
	var flatten func(prefix string, m map[string]any)
	flatten = func(prefix string, m map[string]any) {
		for k, v := range m {
			if sub, ok := v.(map[string]any); ok {
				flatten(prefix+k+".", sub)
				continue
			}
			j, _ := json.Marshal(v)
			out[prefix+k] = string(j)
		}
	}
	flatten("", m)
	return out
}

// A SettingsMismatch is the error of a resume from a checkpoint that
// another run wrote: its settings or graph differ from this run's. It
// wraps ErrCheckpoint.
type SettingsMismatch struct {
	// Diffs lists the fingerprinted settings that differ, sorted by
	// name; empty when only the graph's arcs or the evaluation pairs can
	// differ.
	Diffs []SettingDiff
}

// A SettingDiff is one setting of a SettingsMismatch: its JSON name
// (nested ones as "objective.C", the graph's shape as "graph.nodes")
// and its value in this run and in the checkpoint, each "not set" when
// left at zero and a duration for a time setting.
type SettingDiff struct {
	Setting, Now, Saved string
}

func (e *SettingsMismatch) Error() string {
	if len(e.Diffs) == 0 {
		return ErrCheckpoint.Error() + ": it was written by another run: the same settings and graph size, so the graph's arcs or the evaluation pairs differ"
	}
	parts := make([]string, len(e.Diffs))
	for i, d := range e.Diffs {
		parts[i] = fmt.Sprintf("%s %s (checkpoint: %s)", d.Setting, d.Now, d.Saved)
	}
	return ErrCheckpoint.Error() + ": it was written by another run: settings that differ: " + strings.Join(parts, ", ")
}

// Unwrap returns ErrCheckpoint.
func (e *SettingsMismatch) Unwrap() error { return ErrCheckpoint }

// settingsDiff describes how the settings now differ from those saved,
// sorted by name.
func settingsDiff(savedLines, nowLines []string) *SettingsMismatch {
	saved := map[string]string{}
	for _, l := range savedLines {
		k, v, _ := strings.Cut(l, "=")
		saved[k] = v
	}
	e := &SettingsMismatch{}
	now := map[string]bool{}
	for _, l := range nowLines {
		k, v, _ := strings.Cut(l, "=")
		now[k] = true
		if old, ok := saved[k]; !ok || old != v {
			e.Diffs = append(e.Diffs, SettingDiff{k, showSetting(k, v), showSetting(k, old)})
		}
	}
	// A setting left at its zero value is not recorded (omitempty).
	for k, old := range saved {
		if !now[k] {
			e.Diffs = append(e.Diffs, SettingDiff{k, showSetting(k, ""), showSetting(k, old)})
		}
	}
	slices.SortFunc(e.Diffs, func(a, b SettingDiff) int { return strings.Compare(a.Setting, b.Setting) })
	return e
}

// showSetting shows a setting's JSON value v in a difference: "not set"
// for a setting that is absent (left at zero), a duration in nanoseconds
// (a key ending in _ns) as a duration, a string without its quotes.
func showSetting(k, v string) string {
	if v == "" {
		return "not set"
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil && strings.HasSuffix(k, "_ns") {
		return time.Duration(n).String()
	}
	var text string
	if json.Unmarshal([]byte(v), &text) == nil {
		return text
	}
	return v
}

// CheckpointPath returns the checkpoint file inside directory dir.
func CheckpointPath(dir string) string { return filepath.Join(dir, CheckpointFile) }
