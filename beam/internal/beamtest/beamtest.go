// Package beamtest is the TestMain of the Beam module's test packages.
package beamtest

import (
	"fmt"
	"os"
	"testing"

	"github.com/apache/beam/sdks/v2/go/pkg/beam/testing/ptest"

	"github.com/wys-project/wys/beam/internal/beamrun"
)

// Main runs the tests of m on Prism (unless -runner says otherwise) inside
// a private temporary directory (beamrun.PrivateTemp), so that the
// launcher's beamloopbackworker-* files and the tests' temporary
// directories are removed when the tests end, and returns the exit code:
//
//	func TestMain(m *testing.M) { os.Exit(beamtest.Main(m)) }
func Main(m *testing.M) int {
	restore, err := beamrun.PrivateTemp()
	if err != nil {
		fmt.Fprintln(os.Stderr, "beamtest:", err)
		return 1
	}
	defer restore()
	return ptest.MainRetWithDefault(m, "prism")
}
