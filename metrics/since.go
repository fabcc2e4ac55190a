package metrics

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// ParseSince reads a point in time given relative to now: a duration back
// from now ("7d", "36h", "90m"; d is 24 hours) or a date, YYYY-MM-DD, at
// midnight in now's location. Durations must be positive.
func ParseSince(s string, now time.Time) (time.Time, error) {
	s = strings.TrimSpace(s)
	if t, err := time.ParseInLocation(dayLayout, s, now.Location()); err == nil {
		return t, nil
	}
	d, err := parseAge(s)
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is neither a duration (7d, 24h, 90m) nor a date (YYYY-MM-DD)", s)
	}
	if d <= 0 {
		return time.Time{}, fmt.Errorf("%q: the duration must be positive", s)
	}
	return now.Add(-d), nil
}

// parseAge reads a duration with days: "7d", "1d12h", or time.ParseDuration's.
func parseAge(s string) (time.Duration, error) {
	days, rest, ok := strings.Cut(s, "d")
	if !ok {
		return time.ParseDuration(s)
	}
	n, err := strconv.Atoi(days)
	if err != nil || n < 0 || n > 100*365 {
		return 0, fmt.Errorf("bad number of days %q", days)
	}
	d := time.Duration(n) * 24 * time.Hour
	if rest != "" {
		r, err := time.ParseDuration(rest)
		if err != nil {
			return 0, err
		}
		d += r
	}
	return d, nil
}
