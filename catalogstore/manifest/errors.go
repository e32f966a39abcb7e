package manifest

import "errors"

// These errors can occur when a manifest is written or read.
var (
	// ErrCorrupt: a manifest could not be decoded, or decoded into entries
	// that are inconsistent (misaligned per-column arrays, a checksum
	// mismatch). It is alertable: a committed manifest is never corrupt in
	// a healthy deployment, and the caller must not treat it as empty.
	// Read wraps every such failure with MarkCorrupt; test with IsCorrupt.
	ErrCorrupt = errors.New("manifest corrupt")
	// ErrInvalid: Write was given an entry that breaks the manifest's
	// rules (an empty path, an unknown stats state, per-column arrays not
	// aligned with FieldIDs). Nothing was written.
	ErrInvalid = errors.New("invalid manifest entry")
)

type corruptError struct{ err error }

func (e *corruptError) Error() string {
	return ErrCorrupt.Error() + ": " + e.err.Error()
}

func (e *corruptError) Unwrap() error { return e.err }

func (e *corruptError) Is(target error) bool { return target == ErrCorrupt }

// MarkCorrupt wraps err so that IsCorrupt and errors.Is(err, ErrCorrupt)
// report true, keeping err as the cause. MarkCorrupt(nil) is nil.
func MarkCorrupt(err error) error {
	if err == nil {
		return nil
	}
	if IsCorrupt(err) {
		return err
	}
	return &corruptError{err: err}
}

// IsCorrupt reports whether err (or an error it wraps) marks a corrupt
// manifest.
func IsCorrupt(err error) bool { return errors.Is(err, ErrCorrupt) }
