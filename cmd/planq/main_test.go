package main

import (
	"testing"

	"github.com/planq-dev/planq/internal/testenv"
)

// TestMain removes what the tests built once and shared.
func TestMain(m *testing.M) { testenv.Main(m) }
