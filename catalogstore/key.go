package catalogstore

import (
	"fmt"

	"github.com/lakesql/lakesql/catalogstore/schema"
)

// normalizeKey numbers a new schema's primary-key columns 1..n in key
// order and makes them NOT NULL (as MySQL does for a PRIMARY KEY), then
// checks their types.
func normalizeKey(s *schema.Schema) error {
	key := s.Key()
	if len(key) == 0 {
		return nil
	}
	names := make([]string, len(key))
	for i, c := range key {
		names[i] = s.Columns[c].Name
	}
	if err := s.SetKey(names); err != nil {
		return fmt.Errorf("%w: %w", ErrSchema, err)
	}
	return checkKeyTypes(s)
}

// checkKeyTypes refuses key columns whose values do not compare as keys:
// JSON documents (MySQL refuses them too, error 3152).
func checkKeyTypes(s *schema.Schema) error {
	for _, c := range s.Key() {
		if col := s.Columns[c]; col.Type.Kind == schema.JSON {
			return fmt.Errorf("%w: JSON column %q cannot be part of the primary key", ErrSchema, col.Name)
		}
	}
	return nil
}
