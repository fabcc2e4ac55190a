package staterepo

import "testing"

func TestBudgetRoomAndTake(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		total, spent   int
		limit, reserve int
		room           int // Room(limit, reserve)
		take           int
		taken          bool // Take(take)
		left           int  // Left() after the Take
	}{
		{"capped by the part's limit", 1000, 0, 300, 64, 300, 500, true, 500},
		{"capped by what is left after the reserve", 1000, 800, 300, 64, 136, 200, true, 0},
		{"no limit of its own", 1000, 100, 0, 10, 890, 901, false, 900},
		{"overspent", 100, 150, 50, 0, -50, 1, false, -50},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := NewBudget(tc.total)
			b.Spend(tc.spent)
			if got := b.Room(tc.limit, tc.reserve); got != tc.room {
				t.Errorf("Room(%d, %d) = %d, want %d", tc.limit, tc.reserve, got, tc.room)
			}
			if got := b.Take(tc.take); got != tc.taken {
				t.Errorf("Take(%d) = %v, want %v", tc.take, got, tc.taken)
			}
			if b.Left() != tc.left {
				t.Errorf("Left() = %d, want %d", b.Left(), tc.left)
			}
		})
	}
}
