package graphio

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/wys-project/wys/pipeline"
	"github.com/wys-project/wys/sparse"
)

// Data types of MAT-file Level 5 data elements (the spec's miXXX).
const (
	miINT8       = 1
	miUINT8      = 2
	miINT16      = 3
	miUINT16     = 4
	miINT32      = 5
	miUINT32     = 6
	miSINGLE     = 7
	miDOUBLE     = 9
	miINT64      = 12
	miUINT64     = 13
	miMATRIX     = 14
	miCOMPRESSED = 15
	miUTF8       = 16
)

// Array classes of miMATRIX elements (the spec's mxXXX_CLASS).
const (
	mxCELL   = 1
	mxSTRUCT = 2
	mxOBJECT = 3
	mxCHAR   = 4
	mxSPARSE = 5
	mxDOUBLE = 6
	mxUINT64 = 15
	mxOPAQUE = 17
)

// Array flag bits (in the flags word, above the class byte).
const (
	flagComplex = 0x0800
	flagLogical = 0x0200
)

// matHeaderLen is the length of the MAT-file Level 5 header.
const matHeaderLen = 128

// hdf5Magic starts an HDF5 file; MATLAB v7.3 files are HDF5 files with a
// MAT header in the first 512 bytes.
const hdf5Magic = "\x89HDF\r\n\x1a\n"

// MATFile is a MATLAB Level 5 .mat file (as written by MATLAB's save with
// -v6 or -v7, or by scipy.io.savemat) read into memory by ReadMAT. Its
// numeric and sparse variables are decoded and checked when the file is
// read; Sparse returns one of them as a matrix.
type MATFile struct {
	name string
	vars []*matVar
}

// matVar is one top-level variable.
type matVar struct {
	name     string
	at       string // where its element starts, for errors
	class    int
	complex  bool
	logical  bool
	dims     []int
	ir, jc   []int     // sparse: row index of each stored entry, column starts
	re       []float64 // dense: every element in column-major order; sparse: the stored values
	elements int       // the input bytes of its element (bounds the rows of a sparse matrix)
}

// ReadMAT reads a whole MATLAB Level 5 .mat file from r, plain or gzip
// (recognised by its magic bytes). name is used in errors.
//
// Supported: both byte orders, compressed (zlib) variables, the
// small-data-element format, real dense arrays of any numeric class
// (double, single, int8…uint64) or logical, and real sparse arrays
// (double or logical). Variables of other kinds (cell arrays, structs,
// objects, char arrays, complex values) are read past and recorded; Sparse
// names what they are when asked for one. Level 4 and v7.3 (HDF5) files
// are refused with an error that says how to re-save them.
//
// Errors are *pipeline.ParseError values naming the file and the byte
// offset (or the variable) at fault; they wrap pipeline.ErrFormat, or the
// I/O error. Sizes read from the file are checked against the bytes left
// before anything is allocated, so a corrupt size gives an error, not a
// huge allocation. Memory: the file's bytes (decompressed), plus 8 bytes
// per element of its numeric variables. Reading and inflating stop within
// one read once ctx is done, with its error.
func ReadMAT(ctx context.Context, r io.Reader, name string) (*MATFile, error) {
	data, err := readMATBytes(ctx, r, name)
	if err != nil {
		return nil, err
	}
	order, err := matHeader(data, name)
	if err != nil {
		return nil, err
	}
	f := &MATFile{name: name}
	d := matDecoder{file: name, order: order, buf: data}
	for p := matHeaderLen; p < len(data); {
		typ, body, next, err := d.tag(p, true)
		if err != nil {
			return nil, err
		}
		switch typ {
		case miMATRIX:
			err = f.addMatrix(d, p, body)
		case miCOMPRESSED:
			err = f.addCompressed(ctx, d, p, body)
		default:
			err = d.errf(p, "a top-level element of type %d, where a variable (type 14 or 15) should start: the file is corrupt or not a MAT-file; re-save it", typ)
		}
		if err != nil {
			return nil, err
		}
		p = next
	}
	return f, nil
}

// ctxReader reads from r until ctx is done, then returns ctx's error: a
// long io.ReadAll stops within one Read.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(b []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(b)
}

// readMATBytes returns the content of r, gunzipped when it starts with the
// gzip magic bytes.
func readMATBytes(ctx context.Context, r io.Reader, name string) ([]byte, error) {
	br := bufio.NewReader(ctxReader{ctx, r})
	gz, err := startsGzip(br, name)
	if err != nil {
		return nil, err
	}
	var src io.Reader = br
	if gz {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, &pipeline.ParseError{File: name, Err: fmt.Errorf("%w: unreadable gzip header (%v): re-download or decompress the file", pipeline.ErrFormat, err)}
		}
		defer zr.Close()
		src = zr
	}
	data, err := io.ReadAll(src)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if gz {
			return nil, &pipeline.ParseError{File: name, Err: fmt.Errorf("%w: unreadable gzip data (%v): the file is truncated or corrupt; download or write it again", pipeline.ErrFormat, err)}
		}
		return nil, &pipeline.ParseError{File: name, Err: fmt.Errorf("read failed: %w", err)}
	}
	return data, nil
}

// matHeader checks the 128-byte header and returns the file's byte order.
func matHeader(data []byte, name string) (binary.ByteOrder, error) {
	fail := func(format string, args ...any) error {
		return &pipeline.ParseError{File: name, Err: fmt.Errorf("%w: "+format, append([]any{pipeline.ErrFormat}, args...)...)}
	}
	const resave = "re-save it in MATLAB with save(file, '-v7') or with scipy.io.savemat"
	if bytes.HasPrefix(data, []byte(hdf5Magic)) {
		return nil, fail("an HDF5 file (MATLAB v7.3 format), which is not supported; " + resave)
	}
	var mark string
	if len(data) >= matHeaderLen {
		mark = string(data[126:128])
	}
	// A Level 4 file starts with a 20-byte matrix header whose first
	// 4 bytes (the type code) hold a zero byte; a Level 5 header starts
	// with text.
	if mark != "IM" && mark != "MI" && len(data) >= 20 && slices.Contains(data[:4], 0) {
		return nil, fail("a MATLAB Level 4 file (or not a .mat file), which is not supported; " + resave)
	}
	if len(data) < matHeaderLen {
		return nil, fail("%d bytes, shorter than the 128-byte MAT-file header: the file is truncated or not a .mat file", len(data))
	}
	var order binary.ByteOrder = binary.LittleEndian
	switch mark {
	case "MI":
		order = binary.BigEndian
	case "IM":
	default:
		return nil, fail("no byte-order mark (IM or MI) at byte 126: not a MATLAB Level 5 .mat file")
	}
	switch v := order.Uint16(data[124:126]); v {
	case 0x0100:
		return order, nil
	case 0x0200:
		return nil, fail("a MATLAB v7.3 (HDF5) file, which is not supported; " + resave)
	default:
		return nil, fail("MAT-file version 0x%04x at byte 124, where 0x0100 (Level 5) was expected; %s", v, resave)
	}
}

// matDecoder reads data elements from buf, one level of a file: the file
// itself or the decompressed content of a compressed element.
type matDecoder struct {
	file  string
	order binary.ByteOrder
	buf   []byte
	// in names the compressed element buf was inflated from ("" for the
	// file), so that offsets in errors can be found.
	in string
}

// errf returns a format error at byte p of d.
func (d matDecoder) errf(p int, format string, args ...any) error {
	return &pipeline.ParseError{File: d.file, Err: fmt.Errorf("%w: byte %d%s: "+format, append([]any{pipeline.ErrFormat, p, d.in}, args...)...)}
}

// tag reads the data element at byte p: its type, its data and the offset
// of the next element. The data of a regular element is padded to 8 bytes;
// a compressed element is not (as MATLAB and scipy write them), nor is the
// last element of a buffer required to be.
func (d matDecoder) tag(p int, top bool) (typ uint32, data []byte, next int, err error) {
	left := len(d.buf) - p
	if left < 8 {
		return 0, nil, 0, d.errf(p, "%d bytes left where an 8-byte element tag should be: the file is truncated; re-download or re-save it", left)
	}
	w := d.order.Uint32(d.buf[p:])
	if small := w >> 16; small != 0 {
		if small > 4 {
			return 0, nil, 0, d.errf(p, "a small data element of %d bytes (at most 4 fit): the file is corrupt; re-save it", small)
		}
		return w & 0xffff, d.buf[p+4 : p+4+int(small)], p + 8, nil
	}
	size := uint64(d.order.Uint32(d.buf[p+4:]))
	if size > uint64(left-8) {
		return 0, nil, 0, d.errf(p, "an element of %d bytes, but only %d bytes follow: the file is truncated or corrupt; re-download or re-save it", size, left-8)
	}
	end := p + 8 + int(size)
	next = end
	if !(top && w == miCOMPRESSED) {
		next = min(end+(-end&7), len(d.buf))
	}
	return w, d.buf[p+8 : end], next, nil
}

// addCompressed inflates the compressed element at byte p and adds the
// variable it holds.
func (f *MATFile) addCompressed(ctx context.Context, d matDecoder, p int, body []byte) error {
	zr, err := zlib.NewReader(bytes.NewReader(body))
	if err != nil {
		return d.errf(p, "a compressed variable whose zlib header is unreadable (%v): the file is corrupt; re-save it", err)
	}
	inner, err := io.ReadAll(ctxReader{ctx, zr})
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return d.errf(p, "a compressed variable that does not inflate (%v): the file is truncated or corrupt; re-download or re-save it", err)
	}
	in := matDecoder{file: d.file, order: d.order, buf: inner, in: fmt.Sprintf(" of the variable compressed at byte %d", p)}
	for q := 0; q < len(inner); {
		typ, sub, next, err := in.tag(q, false)
		if err != nil {
			return err
		}
		if typ != miMATRIX {
			return in.errf(q, "an element of type %d inside a compressed variable, where a matrix (type 14) should be: the file is corrupt; re-save it", typ)
		}
		if err := f.addMatrix(in, q, sub); err != nil {
			return err
		}
		q = next
	}
	return nil
}

// addMatrix decodes the miMATRIX element at byte p of d, whose data is
// body, and records the variable.
func (f *MATFile) addMatrix(d matDecoder, p int, body []byte) error {
	if len(body) == 0 {
		return nil // an empty matrix element, as MATLAB writes for empty cells
	}
	v, err := d.matrix(p, body)
	if err != nil {
		return err
	}
	if v.name == "" {
		return nil // unnamed (MATLAB's subsystem data): nobody can ask for it
	}
	if slices.ContainsFunc(f.vars, func(o *matVar) bool { return o.name == v.name }) {
		return d.errf(p, "a second variable named %q: the file is corrupt; re-save it", v.name)
	}
	f.vars = append(f.vars, v)
	return nil
}

// subelements walks the subelements of a matrix's data.
type subelements struct {
	d    matDecoder
	p    int // offset of body in d.buf
	body []byte
	q    int // next subelement, relative to body
}

// next returns the next subelement's type, data and offset in d.buf.
func (s *subelements) next(what string) (uint32, []byte, int, error) {
	at := s.p + s.q
	if s.q >= len(s.body) {
		return 0, nil, at, s.d.errf(at, "the matrix ends where its %s should be: the file is corrupt; re-save it", what)
	}
	sub := s.d
	sub.buf = s.d.buf[:s.p+len(s.body)]
	typ, data, next, err := sub.tag(at, false)
	if err != nil {
		return 0, nil, at, err
	}
	s.q = next - s.p
	return typ, data, at, nil
}

// matrix decodes a matrix's flags, dimensions, name and (for numeric and
// sparse classes) values.
func (d matDecoder) matrix(p int, body []byte) (*matVar, error) {
	s := &subelements{d: d, p: p + 8, body: body}
	typ, flags, at, err := s.next("array flags")
	if err != nil {
		return nil, err
	}
	if typ != miUINT32 || len(flags) != 8 {
		return nil, d.errf(at, "array flags of type %d and %d bytes, where 8 bytes of type 6 were expected: the file is corrupt; re-save it", typ, len(flags))
	}
	fw := d.order.Uint32(flags)
	v := &matVar{class: int(fw & 0xff), complex: fw&flagComplex != 0, logical: fw&flagLogical != 0, at: fmt.Sprintf("byte %d%s", p, d.in), elements: len(body)}
	if v.class != mxOPAQUE {
		if v.dims, err = s.dims(); err != nil {
			return nil, err
		}
	}
	typ, name, at, err := s.next("name")
	if err != nil {
		return nil, err
	}
	if typ != miINT8 && typ != miUINT8 && typ != miUTF8 {
		return nil, d.errf(at, "an array name of type %d, where text (type 1) was expected: the file is corrupt; re-save it", typ)
	}
	v.name = string(name)
	switch {
	case v.class == mxSPARSE:
		err = s.sparse(v)
	case v.class >= mxDOUBLE && v.class <= mxUINT64:
		err = s.dense(v)
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// dims reads the dimensions subelement.
func (s *subelements) dims() ([]int, error) {
	typ, data, at, err := s.next("dimensions")
	if err != nil {
		return nil, err
	}
	if typ != miINT32 || len(data) == 0 || len(data)%4 != 0 {
		return nil, s.d.errf(at, "dimensions of type %d and %d bytes, where 32-bit integers (type 5) were expected: the file is corrupt; re-save it", typ, len(data))
	}
	dims := make([]int, len(data)/4)
	for i := range dims {
		n := int32(s.d.order.Uint32(data[4*i:]))
		if n < 0 {
			return nil, s.d.errf(at, "dimension %d is %d: the file is corrupt; re-save it", i+1, n)
		}
		dims[i] = int(n)
	}
	return dims, nil
}

// numbers reads a numeric subelement as float64 values.
func (s *subelements) numbers(what string) ([]float64, int, error) {
	typ, data, at, err := s.next(what)
	if err != nil {
		return nil, at, err
	}
	size := map[uint32]int{miINT8: 1, miUINT8: 1, miINT16: 2, miUINT16: 2, miINT32: 4, miUINT32: 4, miSINGLE: 4, miDOUBLE: 8, miINT64: 8, miUINT64: 8}[typ]
	if size == 0 || len(data)%size != 0 {
		return nil, at, s.d.errf(at, "%s of type %d and %d bytes, where numbers were expected: the file is corrupt; re-save it", what, typ, len(data))
	}
	out := make([]float64, len(data)/size)
	o := s.d.order
	for i := range out {
		b := data[i*size:]
		switch typ {
		case miINT8:
			out[i] = float64(int8(b[0]))
		case miUINT8:
			out[i] = float64(b[0])
		case miINT16:
			out[i] = float64(int16(o.Uint16(b)))
		case miUINT16:
			out[i] = float64(o.Uint16(b))
		case miINT32:
			out[i] = float64(int32(o.Uint32(b)))
		case miUINT32:
			out[i] = float64(o.Uint32(b))
		case miSINGLE:
			out[i] = float64(math.Float32frombits(o.Uint32(b)))
		case miDOUBLE:
			out[i] = math.Float64frombits(o.Uint64(b))
		case miINT64:
			out[i] = float64(int64(o.Uint64(b)))
		case miUINT64:
			out[i] = float64(o.Uint64(b))
		}
	}
	return out, at, nil
}

// indices reads a sparse matrix's row indices or column starts: integers
// in [0, limit].
func (s *subelements) indices(what string, limit int) ([]int, int, error) {
	x, at, err := s.numbers(what)
	if err != nil {
		return nil, at, err
	}
	out := make([]int, len(x))
	for i, v := range x {
		if v < 0 || v > float64(limit) || v != math.Trunc(v) {
			return nil, at, s.d.errf(at, "%s %d is %v, outside [0, %d]: the file is corrupt; re-save it", what, i, v, limit)
		}
		out[i] = int(v)
	}
	return out, at, nil
}

// dense reads the values of a numeric array: prod(dims) of them.
func (s *subelements) dense(v *matVar) error {
	re, at, err := s.numbers("real part")
	if err != nil {
		return err
	}
	n := 1
	for _, d := range v.dims {
		if d != 0 && n > len(re)/d {
			n = -1
			break
		}
		n *= d
	}
	if n != len(re) {
		return s.d.errf(at, "%d values for an array of dimensions %s: the file is corrupt; re-save it", len(re), dimsString(v.dims))
	}
	v.re = re
	return nil
}

// sparse reads the row indices, column starts and values of a sparse
// array, checking that they describe a matrix of its dimensions.
func (s *subelements) sparse(v *matVar) error {
	if len(v.dims) != 2 {
		return s.d.errf(s.p-8, "a sparse array of dimensions %s (sparse arrays are 2-D): the file is corrupt; re-save it", dimsString(v.dims))
	}
	rows, cols := v.dims[0], v.dims[1]
	ir, _, err := s.indices("row index", max(rows-1, 0))
	if err != nil {
		return err
	}
	jc, at, err := s.indices("column start", len(ir))
	if err != nil {
		return err
	}
	if len(jc) != cols+1 || jc[0] != 0 {
		return s.d.errf(at, "%d column starts for %d columns (want %d, the first 0): the file is corrupt; re-save it", len(jc), cols, cols+1)
	}
	for j := 0; j < cols; j++ {
		if jc[j+1] < jc[j] {
			return s.d.errf(at, "column starts decrease at column %d: the file is corrupt; re-save it", j+1)
		}
	}
	if nnz := jc[cols]; nnz > 0 && rows == 0 {
		return s.d.errf(at, "%d entries in a matrix without rows: the file is corrupt; re-save it", nnz)
	}
	re, at, err := s.numbers("values")
	if err != nil {
		return err
	}
	if len(re) < jc[cols] {
		return s.d.errf(at, "%d values for %d stored entries: the file is corrupt; re-save it", len(re), jc[cols])
	}
	v.ir, v.jc, v.re = ir[:jc[cols]], jc, re[:jc[cols]]
	return nil
}

// dimsString writes dimensions as MATLAB does: 3x4x2.
func dimsString(dims []int) string {
	s := make([]string, len(dims))
	for i, d := range dims {
		s[i] = fmt.Sprint(d)
	}
	return strings.Join(s, "x")
}

// Names returns the names of the file's variables, in file order.
func (f *MATFile) Names() []string {
	names := make([]string, len(f.vars))
	for i, v := range f.vars {
		names[i] = v.name
	}
	return names
}

// className names an array class for errors.
func className(c int) string {
	switch c {
	case mxCELL:
		return "a cell array"
	case mxSTRUCT:
		return "a struct"
	case mxOBJECT, mxOPAQUE:
		return "a MATLAB object"
	case mxCHAR:
		return "a char array (text)"
	}
	return fmt.Sprintf("an array of class %d", c)
}

// matrixVar returns the variable name, checked to be a real 2-D numeric or
// sparse matrix.
func (f *MATFile) matrixVar(name string) (*matVar, error) {
	i := slices.IndexFunc(f.vars, func(v *matVar) bool { return v.name == name })
	if i < 0 {
		return nil, &pipeline.ParseError{File: f.name, Err: fmt.Errorf("%w: no variable %q (the file holds %q); check the file or the variable name", pipeline.ErrFormat, name, f.Names())}
	}
	v := f.vars[i]
	fail := func(what string) error {
		return &pipeline.ParseError{File: f.name, Err: fmt.Errorf("%w: variable %q (%s) is %s, where a real 2-D numeric or sparse matrix is needed; save it as one", pipeline.ErrFormat, name, v.at, what)}
	}
	switch {
	case v.class != mxSPARSE && (v.class < mxDOUBLE || v.class > mxUINT64):
		return nil, fail(className(v.class))
	case v.complex:
		return nil, fail("complex")
	case len(v.dims) != 2:
		return nil, fail("an array of dimensions " + dimsString(v.dims))
	}
	return v, nil
}

// maxDim bounds the dimensions of a variable by its size in the file, so
// that a corrupt dimension cannot ask for gigabytes of row pointers (a
// sparse matrix's rows, or either dimension of an empty array): at most 64
// per byte of its element, or 2^16. (An N x N sparse matrix stores N+1
// column starts of 4 bytes, so no square matrix comes near; nor does an
// N x L label matrix unless fewer than one row in 256 carries a label.)
func maxDim(elementBytes int) int { return max(1<<16, 64*elementBytes) }

// entries calls fn for every nonzero of v in column-major order (MATLAB's
// storage order). Stored zeros of a sparse matrix are skipped.
func (v *matVar) entries(fn func(i, j int, x float64) error) error {
	rows, cols := v.dims[0], v.dims[1]
	for j := 0; j < cols; j++ {
		if v.class == mxSPARSE {
			for e := v.jc[j]; e < v.jc[j+1]; e++ {
				if x := v.re[e]; x != 0 {
					if err := fn(v.ir[e], j, x); err != nil {
						return err
					}
				}
			}
			continue
		}
		for i, x := range v.re[j*rows : (j+1)*rows] {
			if x != 0 {
				if err := fn(i, j, x); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// Sparse returns the variable name as a rows x cols CSR matrix of its
// nonzeros: a sparse array as stored (stored zeros dropped, duplicate
// entries summed, which leaves an explicit zero where they cancel), a
// dense numeric or logical array converted (logical true is 1). Values of integer classes beyond 2^53 are rounded to float64.
// NaN and infinite values are refused. The error names the variable when
// it is missing, not 2-D, complex, or not numeric (cell arrays, structs,
// char arrays), and wraps pipeline.ErrFormat. It stops within 65,536
// entries, or 1,048,576 while building the matrix, of a cancel and
// returns ctx.Err().
func (f *MATFile) Sparse(ctx context.Context, name string) (*sparse.CSR, error) {
	v, err := f.matrixVar(name)
	if err != nil {
		return nil, err
	}
	if err := f.checkSize(v); err != nil {
		return nil, err
	}
	rows, cols := v.dims[0], v.dims[1]
	// At most one entry per stored value.
	src, dst, w := make([]int32, 0, len(v.re)), make([]int32, 0, len(v.re)), make([]float64, 0, len(v.re))
	err = v.entries(func(i, j int, x float64) error {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return f.varErr(v, "has the value %v at row %d, column %d (1-based): replace it by a finite number", x, i+1, j+1)
		}
		src, dst, w = append(src, int32(i)), append(dst, int32(j)), append(w, x)
		if len(src)&(1<<16-1) == 0 {
			return ctx.Err()
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	m, err := sparse.NewFromCOO(ctx, rows, cols, src, dst, w, sparse.DupSum)
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	if err != nil {
		return nil, &pipeline.ParseError{File: f.name, Err: fmt.Errorf("%w: variable %q: %v", pipeline.ErrFormat, name, err)}
	}
	return m, nil
}
