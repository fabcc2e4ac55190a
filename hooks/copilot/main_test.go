package copilot_test

import (
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
)

// TestMain runs the tests under testenv.Main: the planq binaries they
// drive are built once for all of them, and removed after.
func TestMain(m *testing.M) { testenv.Main(m) }
