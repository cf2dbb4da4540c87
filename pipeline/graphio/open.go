package graphio

import (
	"errors"
	"fmt"
	"os"
)

// ErrIsDir is wrapped by the error of OpenFile for a directory.
var ErrIsDir = errors.New("is a directory, not a file")

// OpenFile opens path for reading, as the loaders do. Its errors say to
// check the path; a directory is refused at once (reading one fails later
// with a less helpful "read failed") with an error wrapping ErrIsDir.
func OpenFile(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("%w (check the path)", err)
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s %w (check the path)", path, ErrIsDir)
	}
	return f, nil
}
