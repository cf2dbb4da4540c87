package graphio

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/wys-project/wys/pipeline"
)

// TestReadLinesOffsets checks ReadLines' line numbers, offsets and texts
// against a split of the raw bytes at '\n', plain and gzipped.
func TestReadLinesOffsets(t *testing.T) {
	raw := "1 2\r\n# c\n\n" + strings.Repeat("x", 70000) + " y\n3 4"
	var gz bytes.Buffer
	zw := gzip.NewWriter(&gz)
	zw.Write([]byte(raw))
	zw.Close()
	for _, in := range [][]byte{[]byte(raw), gz.Bytes()} {
		var got []string
		var offs []int64
		err := ReadLines(context.Background(), bytes.NewReader(in), "f", func(ln int, off int64, text []byte) error {
			if ln != len(got)+1 {
				t.Fatalf("line %d after %d lines", ln, len(got))
			}
			got, offs = append(got, string(text)), append(offs, off)
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
		parts := strings.Split(raw, "\n")
		var off int64
		for i, p := range parts {
			if want := strings.TrimSuffix(p, "\r"); got[i] != want || offs[i] != off {
				t.Fatalf("line %d: %.20q at %d, want %.20q at %d", i+1, got[i], offs[i], want, off)
			}
			off += int64(len(p)) + 1
		}
	}
	stop := errors.New("stop")
	if err := ReadLines(context.Background(), strings.NewReader(raw), "f", func(int, int64, []byte) error { return stop }); err != stop {
		t.Fatalf("ReadLines returned %v, want fn's error unchanged", err)
	}
}

// TestParseEdgeLineIDs checks which ids read as integers in each mode and
// the error of a non-integer id under IDInteger.
func TestParseEdgeLineIDs(t *testing.T) {
	for _, c := range []struct {
		line    string
		mode    IDMode
		numeric bool
		num     [2]uint64
	}{
		{"1 2", IDAuto, true, [2]uint64{1, 2}},
		{"001 2", IDAuto, false, [2]uint64{0, 2}},
		{"001 2", IDInteger, true, [2]uint64{1, 2}},
		{"1 2", IDToken, false, [2]uint64{}},
		{"a 18446744073709551615", IDAuto, false, [2]uint64{0, 18446744073709551615}},
		{"1 18446744073709551616", IDAuto, false, [2]uint64{1, 0}},
	} {
		e, err := ParseEdgeLine("f", 3, []byte(c.line), LoadOptions{IDs: c.mode})
		if err != nil || !e.Edge || e.Numeric != c.numeric || e.Num != c.num {
			t.Errorf("%q mode %d: %+v, %v; want numeric %v %v", c.line, c.mode, e, err, c.numeric, c.num)
		}
	}
	_, err := ParseEdgeLine("f", 3, []byte("1 x"), LoadOptions{IDs: IDInteger})
	var pe *pipeline.ParseError
	if !errors.As(err, &pe) || pe.Line != 3 || !errors.Is(err, pipeline.ErrFormat) || !strings.Contains(err.Error(), `"x"`) {
		t.Fatalf("non-integer id under IDInteger: %v", err)
	}
	if e, _ := ParseEdgeLine("f", 1, []byte("\xef\xbb\xbf5 6"), LoadOptions{}); !e.Numeric || e.Num[0] != 5 {
		t.Errorf("byte-order mark on line 1: %+v", e)
	}
	if e, _ := ParseEdgeLine("f", 2, []byte("\xef\xbb\xbf5 6"), LoadOptions{}); e.Numeric {
		t.Errorf("byte-order mark on line 2 read as part of an integer id: %+v", e)
	}
}
