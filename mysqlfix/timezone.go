package mysqlfix

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/dolthub/go-mysql-server/sql"
)

// MySQL keeps a TIMESTAMP as an instant (UTC) and shows it in the
// session's time_zone: a write converts the session's wall clock to UTC,
// a read converts back, and DATETIME is never converted. GMS v0.20.0
// stores a TIMESTAMP as the wall clock it was given, so the same row
// reads differently from MySQL once two sessions' zones differ, and it
// accepts any text as a time_zone. lakesql converts at its storage
// boundary (package provider, with the helpers here) and checks the
// variable when it is set.

// ErrUnknownTimeZone: a time_zone that is neither SYSTEM, an offset
// within MySQL's range (-13:59 to +14:00) nor a zone of the tz database
// (ER_UNKNOWN_TIME_ZONE, 1298). The variable keeps its value.
var ErrUnknownTimeZone = errors.New("Unknown or incorrect time zone")

// offsetZone matches a MySQL time zone offset: [+-]H:MM or [+-]HH:MM.
var offsetZone = regexp.MustCompile(`^([+-])(\d{1,2}):(\d{2})$`)

// ParseTimeZone reads a time_zone value: SYSTEM (the server's zone), an
// offset such as '+02:00', or a tz database name ('Europe/Paris', 'UTC').
func ParseTimeZone(name string) (*time.Location, error) {
	bad := fmt.Errorf("%w: '%s'", ErrUnknownTimeZone, name)
	switch {
	case strings.EqualFold(name, "SYSTEM"):
		return time.Local, nil
	case offsetZone.MatchString(name):
		m := offsetZone.FindStringSubmatch(name)
		h, _ := strconv.Atoi(m[2])
		mins, _ := strconv.Atoi(m[3])
		secs := h*3600 + mins*60
		if mins > 59 || secs > 14*3600 || (m[1] == "-" && secs > 13*3600+59*60) {
			return nil, bad
		}
		if m[1] == "-" {
			secs = -secs
		}
		if secs == 0 {
			return time.UTC, nil
		}
		return time.FixedZone(name, secs), nil
	case name == "" || strings.EqualFold(name, "Local"):
		// time.LoadLocation reads these as UTC and the local zone.
		return nil, bad
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, bad
	}
	return loc, nil
}

// SessionZone returns the session's time_zone as a location, and whether
// it shifts TIMESTAMP values: false when the zone is UTC at every instant
// (then stored and shown values are the same).
func SessionZone(ctx *sql.Context) (*time.Location, bool, error) {
	v, err := ctx.GetSessionVariable(ctx, "time_zone")
	if err != nil {
		return nil, false, err
	}
	name, _ := v.(string)
	loc, err := ParseTimeZone(name)
	if err != nil {
		return nil, false, err
	}
	return loc, !alwaysUTC(loc), nil
}

// alwaysUTC reports whether loc's offset is zero at every instant: UTC
// itself, or a zone with one zero offset and no transitions (detected by
// sampling both halves of years across TIMESTAMP's range, which any
// daylight-saving or historical shift shows in).
func alwaysUTC(loc *time.Location) bool {
	if loc == time.UTC {
		return true
	}
	for y := 1970; y <= 2040; y += 5 {
		for _, m := range []time.Month{time.January, time.July} {
			if _, off := time.Date(y, m, 1, 0, 0, 0, 0, loc).Zone(); off != 0 {
				return false
			}
		}
	}
	return true
}

// TimestampToUTC reads v, a TIMESTAMP as GMS holds it (the wall clock in
// the session's zone, in a time.Time located in UTC), as the instant it
// names in loc. A wall clock skipped by a daylight-saving change reads
// as the instant Go picks next to it, as MySQL moves it too.
func TimestampToUTC(v time.Time, loc *time.Location) time.Time {
	return time.Date(v.Year(), v.Month(), v.Day(), v.Hour(), v.Minute(), v.Second(), v.Nanosecond(), loc).UTC()
}

// TimestampFromUTC is the wall clock in loc of the instant v, located in
// UTC as GMS holds TIMESTAMPs.
func TimestampFromUTC(v time.Time, loc *time.Location) time.Time {
	w := v.In(loc)
	return time.Date(w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute(), w.Second(), w.Nanosecond(), time.UTC)
}
