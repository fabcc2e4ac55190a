package opencode

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/planq-dev/planq/config"
	"github.com/planq-dev/planq/internal/flock"
	"github.com/planq-dev/planq/transcript"
)

// mirrorPath is where planq keeps its copy of an OpenCode session's
// transcript: PLANQ_HOME/hosts/opencode/<session>.jsonl.
func mirrorPath(getenv func(string) string, sessionID string) (string, error) {
	if err := transcript.ValidSessionID(sessionID); err != nil {
		return "", fmt.Errorf("OpenCode session id: %w", err)
	}
	home, err := config.StateHome(getenv)
	if err != nil {
		return "", err
	}
	return filepath.Join(home, "hosts", Host.Name, sessionID+".jsonl"), nil
}

// appendLocked appends messages to the mirror under a lock beside it, so
// two OpenCode processes on one session never write a message twice.
func appendLocked(mirror string, messages json.RawMessage) error {
	if err := os.MkdirAll(filepath.Dir(mirror), 0o700); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	l, err := flock.Acquire(ctx, mirror+".lock", 5*time.Second)
	if err != nil {
		return err
	}
	defer l.Release()
	_, err = transcript.AppendOpenCode(mirror, messages)
	return err
}
