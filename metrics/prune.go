package metrics

import (
	"errors"
	"fmt"
	"os"
	"time"
)

// OldFiles lists the day files in dir whose every record is older than
// before (the whole UTC day ended by then), oldest first: what Prune
// removes.
func OldFiles(dir string, before time.Time) ([]string, error) {
	files, err := dayFiles(dir)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		if !f.day.Add(24 * time.Hour).After(before) {
			out = append(out, f.path)
		}
	}
	return out, nil
}

// Prune removes the day files in dir whose every record is older than
// before, and returns the files it removed. A day file with any newer
// record is kept whole.
func Prune(dir string, before time.Time) ([]string, error) {
	old, err := OldFiles(dir, before)
	if err != nil {
		return nil, err
	}
	var removed []string
	var errs []error
	for _, p := range old {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, fmt.Errorf("metrics: %w", err))
			continue
		}
		removed = append(removed, p)
	}
	return removed, errors.Join(errs...)
}
