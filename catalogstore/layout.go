package catalogstore

import (
	"fmt"

	"github.com/google/uuid"
)

// DataFileKey is the object key of a new data file of ds:
// {location}/data/{uuid}.parquet (DESIGN.md, object layout). Every writer
// of data files (INSERT, copy-on-write DELETE, refresh, compaction) names
// its files with it, so orphan cleanup knows where to look.
func (ds *Dataset) DataFileKey() string {
	return fmt.Sprintf("%s/data/%s.parquet", ds.Location, uuid.NewString())
}
