package flock_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/planq-dev/planq/internal/flock"
)

// TestHelperHold is run as a child process that holds the lock until killed.
func TestHelperHold(t *testing.T) {
	t.Parallel()
	path := os.Getenv("FLOCK_HOLD")
	if path == "" {
		t.Skip("helper process only")
	}
	if _, err := flock.Acquire(context.Background(), path, time.Second); err != nil {
		os.Exit(2)
	}
	os.Stdout.WriteString("held\n")
	time.Sleep(time.Minute)
}

func TestExcludesOtherProcessesUntilTheyDie(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sub", "x.lock")
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperHold$")
	cmd.Env = append(os.Environ(), "FLOCK_HOLD="+path)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := out.Read(buf); err != nil || string(buf) != "held\n" {
		t.Fatalf("helper did not take the lock: %q %v", buf, err)
	}
	if _, err := flock.Acquire(context.Background(), path, 50*time.Millisecond); !errors.Is(err, flock.ErrTimeout) {
		t.Fatalf("Acquire while another process holds it: %v, want ErrTimeout", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := flock.Acquire(ctx, path, time.Minute); !errors.Is(err, context.Canceled) {
		t.Fatalf("Acquire with a cancelled context: %v", err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	l, err := flock.Acquire(context.Background(), path, 5*time.Second)
	if err != nil {
		t.Fatalf("lock not free after its holder died: %v", err)
	}
	l.Release()
	l.Release()
}
