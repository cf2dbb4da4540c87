package wysbeam

import (
	"cmp"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/wys-project/wys/internal/outcheck"
	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/pipeline/graphio"
)

// idsInfo is the ids step's message: the number of nodes (the ids
// themselves are in the ids file), or the loader's error line when the
// keys make no graph. The error travels as a value, and the steps that
// read the message return it, because a runner may go on to run those
// steps with an empty side input after the ids step has failed, and the
// first error to reach the job would then be the runner's "got 0 values"
// instead of the loader's line.
type idsInfo struct {
	N   int
	Err string
	// Sum is the FNV-1a hash of the ids file this run wrote, so that a
	// worker's cached ids from an earlier run with the same Dir are not
	// taken for this run's.
	Sum uint64
}

// err returns the loader's error the message carries, if any.
func (info idsInfo) err() error {
	if info.Err == "" {
		return nil
	}
	return errors.New(info.Err)
}

// arcRec is a stored arc u→v with its weight and the place of the line
// that gave it.
type arcRec struct {
	U, V int32
	W    float64
	File int32
	Off  int64
}

// arcBatch holds arcs of one shard, column by column (see edgeBatch).
type arcBatch struct {
	U, V []int32
	W    []float64
	File []int32
	Off  []int64
}

func (b *arcBatch) add(a arcRec) {
	b.U, b.V, b.W, b.File, b.Off = append(b.U, a.U), append(b.V, a.V), append(b.W, a.W), append(b.File, a.File), append(b.Off, a.Off)
}

// The outputs of a Prep under its Dir.
func (p Prep) idsPath() string        { return p.Dir + "/ids.bin" }
func (p Prep) shardPath(k int) string { return fmt.Sprintf("%s/shards/csr-%05d.bin", p.Dir, k) }
func (p Prep) splitPath() string      { return p.Dir + "/split.bin" }
func (p Prep) notesPath() string      { return p.Dir + "/notes.txt" }

// GraphPath is the training graph's file, read by every worker (Job.Graph).
func (p Prep) GraphPath() string { return p.Dir + "/graph.csr" }

// shardRows returns the rows per shard and the number of shards of n nodes.
func (p Prep) shardRows(n int) (rows, shards int) {
	rows = 1 << 20
	if p.Shards > 0 {
		rows = max(1, (n+p.Shards-1)/p.Shards)
	}
	return rows, (n + rows - 1) / rows
}

// idsFn sorts the distinct node keys into rows as ReadEdgeList numbers
// them (numerically when every key is an integer under the id mode, else
// as byte strings) and writes the ids file. It runs once, on one worker,
// which holds the N keys.
type idsFn struct{ Prep Prep }

func (f *idsFn) ProcessElement(ctx context.Context, _ []byte, keys func(*string) bool, perRange func(*rangeIDs) bool, emit func(idsInfo)) error {
	var all []string
	var k string
	numeric := f.Prep.Load.IDs != graphio.IDToken
	for keys(&k) {
		all = append(all, k)
		if numeric {
			_, numeric = graphio.ParseNodeID([]byte(k), f.Prep.Load.IDs)
		}
	}
	var ranges []rangeIDs
	var r rangeIDs
	for perRange(&r) {
		ranges = append(ranges, r)
	}
	bad, err := matrixMarketChecks(ctx, ranges)
	switch {
	case err != nil:
		return err
	case bad != nil:
	case len(all) == 0:
		bad = graphio.NoEdgesError(f.Prep.Input)
	case len(all) > math.MaxInt32:
		bad = &pipeline.ParseError{File: f.Prep.Input, Err: fmt.Errorf("%w: %d distinct nodes exceed the limit of 2^31-1", pipeline.ErrFormat, len(all))}
	case !numeric && f.Prep.Load.IDs == graphio.IDAuto:
		bad = headerLine(ranges)
	}
	if bad != nil {
		emit(idsInfo{Err: bad.Error()})
		return nil
	}
	var ids *pipeline.NodeIDs
	if numeric {
		nums := make([]uint64, len(all))
		for i, s := range all {
			nums[i], _ = strconv.ParseUint(s, 10, 64)
		}
		ids = pipeline.NewNumericIDs(nums)
	} else {
		ids = pipeline.NewStringIDs(all)
	}
	sum, err := writeIDs(ctx, f.Prep.idsPath(), ids)
	if err != nil {
		return err
	}
	note := ""
	if f.Prep.Load.IDs == graphio.IDAuto && !numeric {
		if note, err = tokenNote(ctx, ranges); err != nil {
			return err
		}
	}
	// Written every time, so that a Dir used before holds no stale note.
	if err := writeFile(ctx, f.Prep.notesPath(), func(w io.Writer) error {
		_, err := io.WriteString(w, note)
		return err
	}); err != nil {
		return err
	}
	emit(idsInfo{N: ids.Len(), Sum: sum})
	return nil
}

// tokenNote returns the loader's note on the line where the ids turned
// to tokens (graphio.LoadReport.LeadingZero and TokenID): an id with a
// leading zero there, so that "01" and "1" are two nodes; else an id not
// written as an integer on a line after others whose ids were all
// integers (a typo, a stray header, files joined without a line end). It
// is "" for a token graph from its first edge line.
func tokenNote(ctx context.Context, ranges []rangeIDs) (string, error) {
	ranges = slices.Clone(ranges)
	slices.SortFunc(ranges, func(a, b rangeIDs) int { return cmp.Or(cmp.Compare(a.Index, b.Index), cmp.Compare(a.Start, b.Start)) })
	first := slices.IndexFunc(ranges, func(r rangeIDs) bool { return r.Edges > 0 })
	at := slices.IndexFunc(ranges, func(r rangeIDs) bool { return r.Switch.ID != "" })
	if first < 0 || at < 0 {
		return "", nil
	}
	r := ranges[at]
	if !r.Zero && at == first && r.Switch.Off == r.FirstOff {
		return "", nil // a token graph from its first edge line
	}
	line := r.Switch.Line
	if line == 0 {
		var err error
		if line, err = lineAt(ctx, r.File, r.Switch.Off); err != nil {
			return "", err
		}
	}
	where := fmt.Sprintf("line %d of %s", line, r.File)
	if r.Zero {
		return outcheck.LeadingZeroNote(where, r.Switch.ID), nil
	}
	return outcheck.TokenIDNote(where, r.Switch.ID), nil
}

// ReadNotes returns the notes the preprocessing p left for the driver to
// print (one per line), none when it left none; a preprocessing that
// succeeded wrote its notes file, so any failure to read it is an error.
func ReadNotes(ctx context.Context, p Prep) ([]string, error) {
	fsys, err := filesystem.New(ctx, p.notesPath())
	if err != nil {
		return nil, fmt.Errorf("wysbeam: %s: %w", p.notesPath(), err)
	}
	defer fsys.Close()
	if size, err := fsys.Size(ctx, p.notesPath()); err != nil {
		return nil, fmt.Errorf("wysbeam: %s: %w", p.notesPath(), err) // a run that succeeded wrote it
	} else if size == 0 {
		return nil, nil
	}
	r, err := fsys.OpenRead(ctx, p.notesPath())
	if err != nil {
		return nil, fmt.Errorf("wysbeam: %s: %w", p.notesPath(), err)
	}
	defer r.Close()
	b, err := io.ReadAll(r)
	if err != nil {
		return nil, fmt.Errorf("wysbeam: %s: %w", p.notesPath(), err)
	}
	if text := strings.TrimSpace(string(b)); text != "" {
		return strings.Split(text, "\n"), nil
	}
	return nil, nil
}

// headerLine applies the loader's header rule to the ranges' counts: when
// the only edge line with ids not written as integers is the input's
// first edge line (that of the first file holding edge lines), and there
// are others, it returns graphio.HeaderError for that line, else nil.
func headerLine(ranges []rangeIDs) error {
	var edges, tokens int64
	first := int32(math.MaxInt32) // the first file holding edge lines
	var cand rangeIDs
	for _, r := range ranges {
		edges, tokens = edges+r.Edges, tokens+r.TokenLines
		if r.Edges > 0 {
			first = min(first, r.Index)
		}
		if r.FirstLine > 0 {
			cand = r
		}
	}
	if tokens != 1 || edges < 2 || cand.FirstLine == 0 || cand.Index != first {
		return nil
	}
	return graphio.HeaderError(cand.File, cand.FirstLine, cand.FirstText)
}

// matrixMarketChecks applies the loader's checks of a Matrix Market
// file's entries to the ranges' reports, file by file: every index in
// 1..N of the size line (the error names the first line of an index
// that is not a positive integer, or else a line of the largest index),
// then as many entry lines as the size line says. It returns the first
// failed check's error as bad; err is an error reading a file.
func matrixMarketChecks(ctx context.Context, ranges []rangeIDs) (bad, err error) {
	byFile := map[string][]rangeIDs{}
	var files []string
	for _, r := range ranges {
		if r.MTX {
			files = append(files, r.File)
		}
		byFile[r.File] = append(byFile[r.File], r)
	}
	slices.Sort(files)
	for _, file := range files {
		var size graphio.MatrixMarketSize
		var edges int64
		var largest, first idLine
		for _, r := range byFile[file] {
			if r.MTX {
				size = r.Size
			}
			edges += r.Edges
			if r.Max.ID != "" && (largest.ID == "" || r.Max.Num > largest.Num || r.Max.Num == largest.Num && r.Max.Off < largest.Off) {
				largest = r.Max
			}
			if r.Bad.ID != "" && (first.ID == "" || r.Bad.Off < first.Off) {
				first = r.Bad
			}
		}
		if first.ID == "" && largest.Num > size.Nodes {
			first = largest
		}
		if first.ID != "" {
			if first.Line == 0 {
				if first.Line, err = lineAt(ctx, file, first.Off); err != nil {
					return nil, err
				}
			}
			return size.CheckIndex(file, first.Line, []byte(first.ID)), nil
		}
		if bad := size.CheckCount(file, edges); bad != nil {
			return bad, nil
		}
	}
	return nil, nil
}

// lineAt returns the number of the line that starts at byte off of file.
func lineAt(ctx context.Context, file string, off int64) (int, error) {
	fsys, err := filesystem.New(ctx, file)
	if err != nil {
		return 0, fmt.Errorf("wysbeam: %s: %w", file, err)
	}
	defer fsys.Close()
	n, err := countLines(ctx, fsys, file, off)
	if err != nil {
		return 0, fmt.Errorf("wysbeam: counting the lines of %s: %w", file, err)
	}
	return n + 1, nil
}

// idsMagic starts the ids file: the magic, 'n' (numeric: N uint64
// little-endian) or 's' (strings: N ids, each ended by '\n'), then N as
// uint64 and the ids in row order.
const idsMagic = "WYSIDS1\n"

// writeIDs writes ids to path and returns the FNV-1a hash of the bytes.
func writeIDs(ctx context.Context, path string, ids *pipeline.NodeIDs) (uint64, error) {
	h := fnv.New64a()
	err := writeFile(ctx, path, func(file io.Writer) error {
		h.Reset()
		w := io.MultiWriter(file, h)
		head := make([]byte, 17)
		copy(head, idsMagic)
		head[8] = 's'
		if ids.Numeric() {
			head[8] = 'n'
		}
		binary.LittleEndian.PutUint64(head[9:], uint64(ids.Len()))
		if _, err := w.Write(head); err != nil {
			return err
		}
		var buf []byte
		for i := 0; i < ids.Len(); i++ {
			if ids.Numeric() {
				v, _ := strconv.ParseUint(ids.Name(i), 10, 64)
				buf = binary.LittleEndian.AppendUint64(buf[:0], v)
			} else {
				buf = append(append(buf[:0], ids.Name(i)...), '\n')
			}
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
		return nil
	})
	return h.Sum64(), err
}

// readIDs reads an ids file.
func readIDs(ctx context.Context, path string) (*pipeline.NodeIDs, error) {
	ids, _, err := readIDsSum(ctx, path)
	return ids, err
}

// readIDsSum reads an ids file and returns the FNV-1a hash of its bytes.
func readIDsSum(ctx context.Context, path string) (*pipeline.NodeIDs, uint64, error) {
	var ids *pipeline.NodeIDs
	h := fnv.New64a()
	err := readFile(ctx, path, func(file io.Reader) error {
		h.Reset()
		r := io.TeeReader(file, h)
		head := make([]byte, 17)
		if _, err := io.ReadFull(r, head); err != nil || string(head[:8]) != idsMagic {
			return fmt.Errorf("not an ids file (no %q header); it is written by the preprocessing", idsMagic[:7])
		}
		n := binary.LittleEndian.Uint64(head[9:])
		if n > math.MaxInt32 {
			return fmt.Errorf("implausible number of ids: %d", n)
		}
		if head[8] == 'n' {
			nums := make([]uint64, n)
			if err := binary.Read(r, binary.LittleEndian, nums); err != nil {
				return fmt.Errorf("truncated ids: %w", err)
			}
			ids = pipeline.NewNumericIDs(nums)
			return nil
		}
		raw, err := io.ReadAll(r)
		if err != nil {
			return err
		}
		names := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
		if uint64(len(names)) != n {
			return fmt.Errorf("%d ids, the header says %d", len(names), n)
		}
		ids = pipeline.NewStringIDs(names)
		return nil
	})
	return ids, h.Sum64(), err
}

var (
	idsMu    sync.Mutex
	idsCache = map[string]cachedIDsFile{}
)

// cachedIDsFile is an ids file as read, with the hash of its bytes.
type cachedIDsFile struct {
	ids *pipeline.NodeIDs
	sum uint64
}

// cachedIDs reads the ids file at path once per process and run: sum is
// the hash of the file the run wrote (idsInfo.Sum). An earlier run's ids
// cached under the same path are read again; a file whose bytes are not
// the run's is an error, never another run's row numbers.
func cachedIDs(ctx context.Context, path string, sum uint64) (*pipeline.NodeIDs, error) {
	idsMu.Lock()
	defer idsMu.Unlock()
	if c, ok := idsCache[path]; ok && c.sum == sum {
		return c.ids, nil
	}
	ids, got, err := readIDsSum(ctx, path)
	if err != nil {
		return nil, err
	}
	if got != sum {
		return nil, fmt.Errorf("wysbeam: %s is not the ids file this run wrote (another run writing to the same directory?)", path)
	}
	idsCache[path] = cachedIDsFile{ids, sum}
	return ids, nil
}

// arcsFn maps a batch's keys to rows and emits its arcs in one batch per
// shard (in any order: the shard step sorts them), with the loader's
// policies: a self-loop is dropped unless kept (its
// node stays, as a row of the ids), and an undirected edge u ≠ v gives
// both arcs, each carrying the line's place so that the first line naming
// the edge in either direction sets both arcs' weight.
type arcsFn struct{ Prep Prep }

func (f *arcsFn) ProcessElement(ctx context.Context, b edgeBatch, info idsInfo, emit func(int, arcBatch)) error {
	if err := info.err(); err != nil {
		return err
	}
	ids, err := cachedIDs(ctx, f.Prep.idsPath(), info.Sum)
	if err != nil {
		return err
	}
	rows, _ := f.Prep.shardRows(info.N)
	out := map[int]*arcBatch{}
	add := func(a arcRec) {
		k := int(a.U) / rows
		if out[k] == nil {
			out[k] = &arcBatch{}
		}
		out[k].add(a)
	}
	for e := range b.U {
		u, ok1 := ids.Row(b.U[e])
		v, ok2 := ids.Row(b.V[e])
		if !ok1 || !ok2 {
			return fmt.Errorf("wysbeam: edge %q %q has an id missing from %s (the ids file is stale?)", b.U[e], b.V[e], f.Prep.idsPath())
		}
		if u == v && !f.Prep.Load.KeepSelfLoops {
			continue
		}
		add(arcRec{U: int32(u), V: int32(v), W: b.W[e], File: b.File, Off: b.Off[e]})
		if !f.Prep.Load.Directed && u != v {
			add(arcRec{U: int32(v), V: int32(u), W: b.W[e], File: b.File, Off: b.Off[e]})
		}
	}
	for k, a := range out {
		emit(k, *a)
	}
	return nil
}

// marksFn emits every shard number with N, so that shards without arcs
// are written too.
type marksFn struct{ Prep Prep }

func (f *marksFn) ProcessElement(info idsInfo, emit func(int, int)) {
	if info.Err != "" {
		return
	}
	_, shards := f.Prep.shardRows(info.N)
	for k := 0; k < shards; k++ {
		emit(k, info.N)
	}
}

// shardFn sorts the arcs of shard k by (row, column, line place), keeps
// the first of each (row, column) and writes the shard's CSR rows.
type shardFn struct{ Prep Prep }

func (f *shardFn) ProcessElement(ctx context.Context, k int, marks func(*int) bool, arcs func(*arcBatch) bool, emit func(int)) error {
	n := -1
	for marks(&n) {
	}
	if n < 0 {
		return fmt.Errorf("wysbeam: arcs of shard %d, which the ids do not give", k)
	}
	var all []arcRec
	var b arcBatch
	for arcs(&b) {
		for i := range b.U {
			all = append(all, arcRec{U: b.U[i], V: b.V[i], W: b.W[i], File: b.File[i], Off: b.Off[i]})
		}
	}
	slices.SortFunc(all, func(a, b arcRec) int {
		return cmp.Or(cmp.Compare(a.U, b.U), cmp.Compare(a.V, b.V), cmp.Compare(a.File, b.File), cmp.Compare(a.Off, b.Off))
	})
	all = slices.CompactFunc(all, func(a, b arcRec) bool { return a.U == b.U && a.V == b.V })
	rows, _ := f.Prep.shardRows(n)
	lo, hi := k*rows, min(n, (k+1)*rows)
	sh := &shard{Lo: lo, Indptr: make([]int64, hi-lo+1), Indices: make([]int32, len(all)), Data: make([]float64, len(all))}
	for i, a := range all {
		sh.Indptr[int(a.U)-lo+1]++
		sh.Indices[i], sh.Data[i] = a.V, a.W
	}
	for r := 1; r < len(sh.Indptr); r++ {
		sh.Indptr[r] += sh.Indptr[r-1]
	}
	if err := writeShard(ctx, f.Prep.shardPath(k), sh); err != nil {
		return err
	}
	emit(k)
	return nil
}

// shard is rows Lo.. of a CSR: its row pointers (from 0), columns and
// values.
type shard struct {
	Lo      int
	Indptr  []int64
	Indices []int32
	Data    []float64
}

// shardMagic starts a shard file: the magic, Lo, the number of rows and
// of arcs (uint64), then Indptr (int64), Indices (int32) and Data
// (float64), little-endian.
const shardMagic = "WYSSHD1\n"

func writeShard(ctx context.Context, path string, sh *shard) error {
	return writeFile(ctx, path, func(w io.Writer) error {
		head := make([]byte, 32)
		copy(head, shardMagic)
		binary.LittleEndian.PutUint64(head[8:], uint64(sh.Lo))
		binary.LittleEndian.PutUint64(head[16:], uint64(len(sh.Indptr)-1))
		binary.LittleEndian.PutUint64(head[24:], uint64(len(sh.Indices)))
		for _, v := range []any{head, sh.Indptr, sh.Indices, sh.Data} {
			if err := binary.Write(w, binary.LittleEndian, v); err != nil {
				return err
			}
		}
		return nil
	})
}

func readShard(ctx context.Context, path string) (*shard, error) {
	sh := &shard{}
	err := readFile(ctx, path, func(r io.Reader) error {
		head := make([]byte, 32)
		if _, err := io.ReadFull(r, head); err != nil || string(head[:8]) != shardMagic {
			return fmt.Errorf("not a CSR shard (no %q header); it is written by the preprocessing", shardMagic[:7])
		}
		lo, rows, nnz := binary.LittleEndian.Uint64(head[8:]), binary.LittleEndian.Uint64(head[16:]), binary.LittleEndian.Uint64(head[24:])
		if lo > math.MaxInt32 || rows > math.MaxInt32 || nnz > 1<<40 {
			return fmt.Errorf("implausible sizes: rows from %d, %d rows, %d arcs", lo, rows, nnz)
		}
		sh.Lo, sh.Indptr, sh.Indices, sh.Data = int(lo), make([]int64, rows+1), make([]int32, nnz), make([]float64, nnz)
		for _, v := range []any{sh.Indptr, sh.Indices, sh.Data} {
			if err := binary.Read(r, binary.LittleEndian, v); err != nil {
				return fmt.Errorf("truncated shard of %d rows and %d arcs: %w", rows, nnz, err)
			}
		}
		return nil
	})
	return sh, err
}
