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
)

// repl reads statements line by line (with editing and history), runs
// each when it ends with a semicolon, and prints results with timing.
// Errors are printed, not fatal.
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
	var buf strings.Builder
	for {
		line, err := rl.Readline()
		if errors.Is(err, readline.ErrInterrupt) {
			buf.Reset()
			rl.SetPrompt(prompt(conn, false))
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
			rl.SetPrompt(prompt(conn, true))
			continue
		}
		stmt := buf.String()
		buf.Reset()
		start := time.Now()
		results, qerr := conn.Query(ctx, stmt)
		for _, r := range results {
			out.print(r)
		}
		if qerr != nil {
			fmt.Fprintln(stderr, "ERROR:", qerr)
		} else {
			fmt.Fprintf(stdout, "(%.3f sec)\n", time.Since(start).Seconds())
		}
		rl.SetPrompt(prompt(conn, false))
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
