package sqlerr

import (
	"context"
	"strings"

	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/datafile"
	"github.com/lakesql/lakesql/mysqlfix"
)

// flattenedSentinels are lakesql errors that reach GMS from places that
// cannot wrap them (the scan's row iterators, the vectorised nodes) and so
// arrive on the wire flattened into 1105: Remap recognises them by the
// sentinel's text, which every such error carries, and gives them the
// sentinel's code from table. Read-only.
var flattenedSentinels = []error{datafile.ErrChecksum, blob.ErrNoSpace, blob.ErrReadOnly, mysqlfix.ErrSecureFilePriv, mysqlfix.ErrCSV, context.Canceled}

// lookupMessage finds the code of a flattened lakesql error by its text.
func lookupMessage(msg string) (Code, bool) {
	for _, e := range flattenedSentinels {
		if strings.Contains(msg, e.Error()) {
			return Lookup(e)
		}
	}
	return Code{}, false
}
