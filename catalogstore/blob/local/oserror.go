package local

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"

	"github.com/lakesql/lakesql/catalogstore/blob"
)

// writeError is the error of a failed write to the folder, for a caller
// who knows the object's key: a full or read-only file system becomes
// blob.ErrNoSpace or blob.ErrReadOnly, and the path of the store's own
// temporary file (.tmp/put-…, an implementation detail) is left out of
// the message, keeping the operating system's reason.
func writeError(err error) error {
	var pe *fs.PathError
	var le *os.LinkError
	cause := err
	switch {
	case errors.As(err, &pe):
		cause = pe.Err
	case errors.As(err, &le):
		cause = le.Err
	}
	switch {
	case errors.Is(cause, syscall.ENOSPC), errors.Is(cause, syscall.EDQUOT):
		return fmt.Errorf("%w (%v)", blob.ErrNoSpace, cause)
	case errors.Is(cause, syscall.EROFS), errors.Is(cause, syscall.EACCES), errors.Is(cause, syscall.EPERM):
		return fmt.Errorf("%w (%v)", blob.ErrReadOnly, cause)
	}
	return cause
}
