package wysbeam

import (
	"bufio"
	"context"
	"encoding/binary"
	"fmt"
	"io"
	"math"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/io/filesystem"

	"github.com/wys-project/wys/pipeline/train"
)

// blockMagic starts a parameter block's chunk file: the magic, the number
// of float32 values per array and whether the Adam moments follow, then
// X (and M, V) little-endian.
const blockMagic = "WYSBLK1\n"

// blockPath is the chunk file of block i of side ("L" or "R") at version
// (the number of rounds done) under dir, a path of any Beam filesystem.
func blockPath(dir string, version int64, side string, i int) string {
	return fmt.Sprintf("%s/v%06d/%s-%04d.blk", dir, version, side, i)
}

// qPath is the file of the attention state at version.
func qPath(dir string, version int64) string {
	return fmt.Sprintf("%s/v%06d/q.json", dir, version)
}

// writeFile writes data to path through the Beam filesystem of its
// scheme. A retried bundle writes the same bytes to the same path.
func writeFile(ctx context.Context, path string, write func(w io.Writer) error) (err error) {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return fmt.Errorf("wysbeam: %s: %w", path, err)
	}
	defer fs.Close()
	w, err := fs.OpenWrite(ctx, path)
	if err != nil {
		return fmt.Errorf("wysbeam: %s: %w", path, err)
	}
	bw := bufio.NewWriter(w)
	if err = write(bw); err == nil {
		err = bw.Flush()
	}
	if cerr := w.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("wysbeam: writing %s: %w", path, err)
	}
	return nil
}

// readFile reads path through the Beam filesystem of its scheme.
func readFile(ctx context.Context, path string, read func(r io.Reader) error) error {
	fs, err := filesystem.New(ctx, path)
	if err != nil {
		return fmt.Errorf("wysbeam: %s: %w", path, err)
	}
	defer fs.Close()
	r, err := fs.OpenRead(ctx, path)
	if err != nil {
		return fmt.Errorf("wysbeam: %s: %w", path, err)
	}
	defer r.Close()
	if err := read(bufio.NewReader(r)); err != nil {
		return fmt.Errorf("wysbeam: reading %s: %w", path, err)
	}
	return nil
}

// writeBlock writes b as a chunk file.
func writeBlock(ctx context.Context, path string, b *train.Block) error {
	return writeFile(ctx, path, func(w io.Writer) error {
		var head [13]byte
		copy(head[:], blockMagic)
		binary.LittleEndian.PutUint32(head[8:], uint32(len(b.X)))
		// Byte 12 says which optimiser state follows X: 0 none (SGD), 1
		// Adam's M and V, 2 RMSProp's V.
		arrays := [][]float32{b.X}
		switch {
		case b.M != nil:
			head[12] = 1
			arrays = append(arrays, b.M, b.V)
		case b.V != nil:
			head[12] = 2
			arrays = append(arrays, b.V)
		}
		if _, err := w.Write(head[:]); err != nil {
			return err
		}
		buf := make([]byte, 4*len(b.X))
		for _, a := range arrays {
			for k, x := range a {
				binary.LittleEndian.PutUint32(buf[4*k:], math.Float32bits(x))
			}
			if _, err := w.Write(buf); err != nil {
				return err
			}
		}
		return nil
	})
}

// readBlock reads a chunk file written by writeBlock.
func readBlock(ctx context.Context, path string) (*train.Block, error) {
	b := &train.Block{}
	err := readFile(ctx, path, func(r io.Reader) error {
		var head [13]byte
		if _, err := io.ReadFull(r, head[:]); err != nil || string(head[:8]) != blockMagic {
			return fmt.Errorf("not a parameter block (no %q header); was it written by wys-beam?", blockMagic[:7])
		}
		n := int(binary.LittleEndian.Uint32(head[8:]))
		arrays := []*[]float32{&b.X}
		switch head[12] {
		case 0:
		case 1:
			arrays = append(arrays, &b.M, &b.V)
		case 2:
			arrays = append(arrays, &b.V)
		default:
			return fmt.Errorf("unknown optimiser state %d in the header (a newer wys-beam?)", head[12])
		}
		buf := make([]byte, 4*n)
		for _, a := range arrays {
			if _, err := io.ReadFull(r, buf); err != nil {
				return fmt.Errorf("truncated block of %d values: %w", n, err)
			}
			*a = make([]float32, n)
			for k := range *a {
				(*a)[k] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*k:]))
			}
		}
		return nil
	})
	return b, err
}

// removeBlocks deletes the blocks of version, once the next version is
// complete: every bucket of the round that read them has committed, so no
// retry reads them again, and a run keeps two versions of its parameters
// instead of one per round. It is best-effort cleanup: a filesystem without
// removal, a file already gone (a retried q step) or a failed removal
// leaves the file behind and the run goes on.
func removeBlocks(ctx context.Context, dir string, version int64, p int) {
	for i := 0; i < p; i++ {
		for _, side := range []string{"L", "R"} {
			path := blockPath(dir, version, side, i)
			fs, err := filesystem.New(ctx, path)
			if err != nil {
				return
			}
			if r, ok := fs.(filesystem.Remover); ok {
				_ = r.Remove(ctx, path)
			}
			fs.Close()
		}
	}
}
