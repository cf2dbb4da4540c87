package pipeline

import (
	"errors"
	"fmt"
	"strings"

	"github.com/wys-project/wys/internal/sysmem"
)

// Sentinel errors; every loading error wraps one of them (or an I/O error
// such as fs.ErrNotExist, or the context's error).
var (
	// ErrFormat reports a malformed line or file.
	ErrFormat = errors.New("malformed input")
	// ErrEmptyGraph reports an input with no edges.
	ErrEmptyGraph = errors.New("graph has no edges")
	// ErrUnknownNode reports a node id that is not in the graph, or a row
	// outside the node range.
	ErrUnknownNode = errors.New("unknown node id")
	// ErrBadGraph reports a Graph built in code that breaks what every
	// method assumes (see CheckGraph), or a split that does not belong
	// to the graph it is given with (see Split.CheckGraph).
	ErrBadGraph = errors.New("invalid graph")
)

// ParseError is an error in an input file, with its position, modelled on
// encoding/csv's ParseError. It unwraps to the underlying error: one of the
// sentinels above, or an I/O error.
type ParseError struct {
	File string // file name as given
	Line int    // 1-based line number, 0 when the error concerns the whole file
	Err  error
}

func (e *ParseError) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s:%d: %v", e.File, e.Line, e.Err)
	}
	return fmt.Sprintf("%s: %v", e.File, e.Err)
}

func (e *ParseError) Unwrap() error { return e.Err }

// SettingError is a configuration setting that cannot be used, found by
// a Validate method before any work starts. Setting names the field as
// the configuration's JSON form does (the run report's: "negative_block",
// "C"), so that a front end can name its own flag for it; Value is the
// value as set and Want what the setting accepts. When the value is
// refused only in combination with other settings, With names them (as
// Setting does) and Want says why, so that a front end can name its flags
// for them too.
type SettingError struct {
	Pkg     string // the package whose configuration it is: "train", "reference", ...
	Setting string
	Value   any
	Want    string
	With    []string
}

func (e *SettingError) Error() string {
	if len(e.With) > 0 {
		return fmt.Sprintf("%s: %s = %s with %s: %s", e.Pkg, e.Setting, e.ValueText(), strings.Join(e.With, " and "), e.Want)
	}
	return fmt.Sprintf("%s: %s = %s: %s", e.Pkg, e.Setting, e.ValueText(), e.Want)
}

// ValueText returns the value as a flag would be given: strings quoted.
func (e *SettingError) ValueText() string {
	if s, ok := e.Value.(string); ok {
		return fmt.Sprintf("%q", s)
	}
	return fmt.Sprint(e.Value)
}

// ErrNotFinite reports a NaN or infinite loss during training, or
// embeddings that hold NaN or ±Inf at its end: a diverged run.
var ErrNotFinite = errors.New("not finite")

// ErrMemory reports a run whose memory estimate exceeds the limit.
var ErrMemory = errors.New("not enough memory")

// ErrTooLarge reports a graph above the size a method that holds dense
// N x N matrices takes whatever the memory (NetMF, the log-SVD start, the
// exact refinement): a setting to change, not a fault of the input.
var ErrTooLarge = errors.New("graph too large for the method")

// MemoryLimit resolves a memory limit in bytes as CheckMemory does: 0
// means 90% of the available memory (sysmem.Available), which may be
// unknown (0: no limit).
func MemoryLimit(limit int64) int64 {
	if limit == 0 {
		limit = sysmem.Available() * 9 / 10
	}
	return limit
}

// CheckMemory is the pre-flight memory check of every method: it returns
// the limit in force (limit, or 90% of the machine's available memory when
// limit is 0; no limit where that is unknown) and, when need is above it,
// an error wrapping ErrMemory that says what needs the memory and how to
// lower it.
func CheckMemory(need, limit int64, what, fix string) (int64, error) {
	limit = MemoryLimit(limit)
	if limit > 0 && need > limit {
		return limit, fmt.Errorf("%w: %s need about %s, above the limit of %s; %s",
			ErrMemory, what, sysmem.FormatBytes(need), sysmem.FormatBytes(limit), fix)
	}
	return limit, nil
}
