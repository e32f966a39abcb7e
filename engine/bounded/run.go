package bounded

import (
	"bufio"
	"fmt"
	"io"
	"os"
)

// runBuf is the buffer of a run's writer and of each reader of a merge.
const runBuf = 32 << 10

// run is a sorted run on disk. Its file is unlinked as soon as it is
// created, so nothing is left behind whatever ends the query (an error,
// KILL QUERY, a crash); the open descriptor keeps the data until close.
type run struct {
	f    *os.File
	rows int64
}

// runWriter writes one run.
type runWriter struct {
	run
	enc encoder
}

func newRunWriter(dir string) (*runWriter, error) {
	f, err := os.CreateTemp(dir, "lakesql-sort-*.run")
	if err != nil {
		return nil, fmt.Errorf("spill sort run: %w", err)
	}
	_ = os.Remove(f.Name())
	w := &runWriter{run: run{f: f}}
	w.enc.w = bufio.NewWriterSize(f, runBuf)
	return w, nil
}

func (w *runWriter) add(r []any) error {
	if err := w.enc.row(r); err != nil {
		return err
	}
	w.rows++
	return nil
}

// finish flushes the run and rewinds it for reading.
func (w *runWriter) finish() (*run, error) {
	if err := w.enc.w.Flush(); err != nil {
		w.f.Close()
		return nil, fmt.Errorf("spill sort run: %w", err)
	}
	if _, err := w.f.Seek(0, io.SeekStart); err != nil {
		w.f.Close()
		return nil, fmt.Errorf("spill sort run: %w", err)
	}
	return &w.run, nil
}

func (w *runWriter) abort() { w.f.Close() }

func (r *run) reader() *decoder { return &decoder{r: bufio.NewReaderSize(r.f, runBuf)} }

func (r *run) close() { r.f.Close() }
