package benchmarks

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"

	"github.com/sbinet/npyio/npy"
)

// Gensim holds the settings of the DeepWalk baseline: gensim skip-gram on
// uniform random walks, run by benchmarks/gensim/deepwalk.py.
type Gensim struct {
	Python, Script                                   string
	Walks, Length, Window, Negative, Epochs, Workers int
	Seed                                             uint64
	Dim                                              int
}

// Register binds the settings to flags of fs (-python, -script and
// -gensim-*), with epochs passes over the walks by default and epochsHelp
// saying why.
func (o *Gensim) Register(fs *flag.FlagSet, epochs int, epochsHelp string) {
	fs.StringVar(&o.Python, "python", "/usr/bin/python3", "python3 with gensim and numpy (Debian: apt-get install python3-gensim)")
	fs.StringVar(&o.Script, "script", "benchmarks/gensim/deepwalk.py", "the DeepWalk script, relative to the working directory")
	fs.IntVar(&o.Walks, "gensim-walks", 10, "gensim: walks per node")
	fs.IntVar(&o.Length, "gensim-length", 80, "gensim: nodes per walk")
	fs.IntVar(&o.Window, "gensim-window", 10, "gensim: skip-gram window")
	fs.IntVar(&o.Negative, "gensim-negative", 5, "gensim: negatives per positive pair")
	fs.IntVar(&o.Epochs, "gensim-epochs", epochs, "gensim: passes over the walks ("+epochsHelp+")")
	fs.IntVar(&o.Workers, "gensim-workers", 2, "gensim: worker threads")
}

// Check fails, before any work, with one line saying what to install or
// give when -python cannot run the DeepWalk script: it is missing, older
// than MinPython, or lacks numpy or gensim 4; or -script is missing.
func (o *Gensim) Check(ctx context.Context) error {
	if _, err := os.Stat(o.Script); err != nil {
		return fmt.Errorf("-script %s: %w (run from the repository's root, or give -script)", o.Script, err)
	}
	return CheckPython(ctx, "-python", o.Python, NumPy, Gensim4)
}

// Validate reports a -gensim-* setting that deepwalk.py cannot run with
// (it would fail after the methods before it, or train nothing).
func (o *Gensim) Validate() error {
	for _, s := range []struct {
		flag     string
		val, min int
	}{{"walks", o.Walks, 1}, {"length", o.Length, 2}, {"window", o.Window, 1}, {"negative", o.Negative, 1}, {"epochs", o.Epochs, 1}, {"workers", o.Workers, 1}} {
		if s.val < s.min {
			return fmt.Errorf("-gensim-%s %d: want at least %d", s.flag, s.val, s.min)
		}
	}
	return nil
}

// CheckMethods validates the settings (a usage error) and runs Check when
// methods holds "gensim".
func (o *Gensim) CheckMethods(ctx context.Context, h *Harness, methods map[string]bool) error {
	if !methods["gensim"] {
		return nil
	}
	if err := h.Settings(o); err != nil {
		return err
	}
	return o.Check(ctx)
}

// Describe names the settings for a results file.
func (o *Gensim) Describe() string {
	return fmt.Sprintf("4.2 skip-gram on DeepWalk walks (%d walks of %d per node, window %d, %d negatives, d = %d, %d epoch(s), %d workers, no subsampling)",
		o.Walks, o.Length, o.Window, o.Negative, o.Dim, o.Epochs, o.Workers)
}

// GensimEpoch is the state of a DeepWalk run after one epoch: Y (input
// vectors) and YC (output vectors of negative sampling), n x Dim row-major,
// and the seconds since the script read the edge list (walks, vocabulary
// and training included, writing the vectors excluded).
type GensimEpoch struct {
	Epoch   int
	Elapsed float64
	Y, YC   []float32
}

// gensimEvent is one JSON line of deepwalk.py.
type gensimEvent struct {
	Version string  `json:"gensim"`
	Epoch   int     `json:"epoch"`
	Elapsed float64 `json:"elapsed"`
	Y       string  `json:"y"`
	YC      string  `json:"yc"`
}

// RunDeepWalk runs deepwalk.py on the undirected graph adj (n nodes; its
// weights are ignored) and calls onEpoch after each epoch. It stops the
// script when ctx is cancelled or onEpoch fails.
func RunDeepWalk(ctx context.Context, o Gensim, adj interface {
	Dims() (int, int)
	Row(int) ([]int32, []float64)
}, onEpoch func(GensimEpoch) error) error {
	edges, err := WriteEdgeListTemp(adj)
	if err != nil {
		return err
	}
	defer os.Remove(edges)
	dir, err := os.MkdirTemp("", "wys-deepwalk-*")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n, _ := adj.Dims()
	cmd := exec.CommandContext(ctx, o.Python, o.Script, edges, fmt.Sprint(n), dir,
		"--walks", fmt.Sprint(o.Walks), "--length", fmt.Sprint(o.Length), "--dim", fmt.Sprint(o.Dim),
		"--window", fmt.Sprint(o.Window), "--negative", fmt.Sprint(o.Negative), "--epochs", fmt.Sprint(o.Epochs),
		"--workers", fmt.Sprint(o.Workers), "--seed", fmt.Sprint(o.Seed))
	var stderr strings.Builder
	cmd.Stderr = &stderr
	cmd.WaitDelay = WaitDelay
	out, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("gensim: %w (give -python)", err)
	}
	epochs, err := readEpochs(out, n*o.Dim, onEpoch)
	if err != nil {
		cancel()
		cmd.Wait()
		return err
	}
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("gensim: %s: %v: %s", o.Script, err, LastLine(stderr.String()))
	}
	if epochs == 0 {
		return errors.New("gensim: the script wrote no embeddings")
	}
	return nil
}

// readEpochs reads deepwalk.py's JSON lines, loads each epoch's vectors
// (want values each), removes their files and calls onEpoch; it returns
// the number of epochs read.
func readEpochs(out interface{ Read([]byte) (int, error) }, want int, onEpoch func(GensimEpoch) error) (int, error) {
	epochs := 0
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		var ev gensimEvent
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			return epochs, fmt.Errorf("gensim: %q: %v", sc.Text(), err)
		}
		if ev.Y == "" {
			continue
		}
		y, err := ReadNPY32(ev.Y, want)
		if err != nil {
			return epochs, err
		}
		yc, err := ReadNPY32(ev.YC, want)
		if err != nil {
			return epochs, err
		}
		os.Remove(ev.Y)
		os.Remove(ev.YC)
		epochs++
		if err := onEpoch(GensimEpoch{Epoch: ev.Epoch, Elapsed: ev.Elapsed, Y: y, YC: yc}); err != nil {
			return epochs, err
		}
	}
	return epochs, sc.Err()
}

// ReadNPY32 reads a float32 .npy file of want values.
func ReadNPY32(path string, want int) ([]float32, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r, err := npy.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	var v []float32
	if err := r.Read(&v); err != nil {
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if len(v) != want {
		return nil, fmt.Errorf("%s: %d values, want %d", path, len(v), want)
	}
	return v, nil
}
