package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/chzyer/readline"

	"github.com/lakesql/lakesql/engine"
	"github.com/lakesql/lakesql/scan"
)

// repl reads statements line by line (with editing and history), runs
// each when it ends with a semicolon, and prints results with timing.
// Errors are printed, not fatal. Ctrl-C at the prompt clears the line;
// while a statement runs it cancels the statement (interrupter), whose
// scans' progress shows as a bar once it has run for a second.
func repl(ctx context.Context, conn *engine.Conn, stdin io.Reader, stdout, stderr io.Writer, out printer) error {
	home, _ := os.UserHomeDir()
	rl, err := readline.NewEx(&readline.Config{
		Prompt:      prompt(conn, false),
		HistoryFile: filepath.Join(home, ".lakesql_history"),
		Stdin:       io.NopCloser(stdin),
		Stdout:      stdout,
		Stderr:      stderr,
	})
	if err != nil {
		return err
	}
	defer rl.Close()
	fmt.Fprintln(stdout, "lakesql", version, "— type SQL ending with ;, or quit")
	return replLoop(ctx, conn, rl, stdout, stderr, out, true)
}

// lineReader is what the REPL reads statements from: readline's
// Instance, or a script in tests.
type lineReader interface {
	Readline() (string, error)
	SetPrompt(string)
}

// replLoop is the REPL over lines: it returns at end of input or quit.
// bar draws the progress bar of long statements (a terminal only).
func replLoop(ctx context.Context, conn *engine.Conn, lines lineReader, stdout, stderr io.Writer, out printer, bar bool) error {
	intr := interrupterFrom(ctx)
	intr.replMode()
	var buf strings.Builder
	for {
		line, err := lines.Readline()
		if errors.Is(err, readline.ErrInterrupt) {
			buf.Reset()
			lines.SetPrompt(prompt(conn, false))
			continue
		}
		if err != nil { // io.EOF
			return nil
		}
		if buf.Len() == 0 {
			switch strings.ToLower(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(line), ";"))) {
			case "quit", "exit", `\q`:
				return nil
			case "":
				continue
			}
		}
		buf.WriteString(line)
		buf.WriteByte('\n')
		if !strings.HasSuffix(strings.TrimSpace(line), ";") {
			lines.SetPrompt(prompt(conn, true))
			continue
		}
		stmt := buf.String()
		buf.Reset()
		runStatement(ctx, intr, conn, stmt, stdout, stderr, out, bar)
		lines.SetPrompt(prompt(conn, false))
	}
}

// runStatement runs one REPL statement under its own cancellable context
// and prints its results, its time, or its error.
func runStatement(ctx context.Context, intr *interrupter, conn *engine.Conn, stmt string, stdout, stderr io.Writer, out printer, bar bool) {
	qctx, end := intr.begin(ctx)
	defer end()
	pr := &scan.Progress{}
	qctx = scan.WithProgress(qctx, pr)
	stop := func() {}
	if bar {
		stop = showQueryProgress(qctx, pr, stderr)
	}
	start := time.Now()
	results, qerr := conn.Query(qctx, stmt)
	stop()
	for _, r := range results {
		out.print(r)
	}
	switch {
	case qerr != nil && qctx.Err() != nil && ctx.Err() == nil:
		fmt.Fprintln(stderr, "ERROR: query cancelled (Ctrl-C)")
	case qerr != nil:
		fmt.Fprintln(stderr, "ERROR:", qerr)
	default:
		fmt.Fprintf(stdout, "(%.3f sec)\n", time.Since(start).Seconds())
	}
}

func prompt(conn *engine.Conn, cont bool) string {
	if cont {
		return "      -> "
	}
	s := conn.Session()
	db := s.GetCurrentDatabase()
	if db == "" {
		return fmt.Sprintf("lakesql [%s]> ", s.CurrentWorkspace())
	}
	return fmt.Sprintf("lakesql [%s.%s]> ", s.CurrentWorkspace(), db)
}
