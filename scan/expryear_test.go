package scan

import (
	"testing"
	"time"
)

// TestCivilYear_MatchesTime: the year of day numbers across the DATE
// range, before and after 1970 and around leap days, is Go's.
func TestCivilYear_MatchesTime(t *testing.T) {
	check := func(days int64) {
		want := time.Unix(days*86400, 0).UTC().Year()
		if got := civilYear(days); got != int64(want) {
			t.Fatalf("civilYear(%d) = %d, want %d", days, got, want)
		}
	}
	for d := int64(-719528); d <= 2932896; d += 97 { // 0000-01-01 .. 9999-12-31
		check(d)
	}
	for _, d := range []int64{-1, 0, 1, 58, 59, 60, 365, 10957, 11016, 11017, -719468, -719469, -146097, -146098} {
		check(d)
	}
}
