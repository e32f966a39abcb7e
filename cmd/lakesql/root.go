package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/lakesql/lakesql/engine"
)

// version is set at build time with -ldflags "-X main.version=...".
var version = "dev"

// globalFlags select the warehouse and backends, for every verb.
type globalFlags struct {
	warehouse string
	workspace string
	metastore string
	storage   string
	user      string
	logLevel  string
	auth      bool
	readOnly  bool
	// secureFilePriv: engine.Config.SecureFilePriv (--secure-file-priv).
	secureFilePriv string
	// allowNewMetastore: initialise an empty metastore over storage that
	// holds datasets (engine.Config.AllowNewMetastore).
	allowNewMetastore bool
	// env is what open read from the environment.
	env envSettings
}

func (g *globalFlags) register(cmd *cobra.Command) {
	f := cmd.PersistentFlags()
	f.StringVar(&g.warehouse, "warehouse", "lake", "warehouse folder of the embedded default (SQLite metastore and data)")
	f.StringVar(&g.workspace, "workspace", "", "workspace to start in (never created implicitly; default: main, created on a new warehouse)")
	f.StringVar(&g.metastore, "metastore", "", "production metastore: firestore://PROJECT[/DATABASE]")
	f.StringVar(&g.storage, "storage", "", "production object store: gs://BUCKET/PREFIX")
	f.StringVar(&g.user, "user", "root", "user for embedded sessions (the author of commits)")
	f.StringVar(&g.logLevel, "log-level", "warn", "log level: debug, info, warn, error")
	f.StringVar(&g.secureFilePriv, "secure-file-priv", "", "the only local folder (outside the warehouse) that LOAD DATA INFILE, INTO OUTFILE, LOAD_FILE, read_parquet, read_csv, add_files and export_parquet may use, by users with FILE (default: none, such files off)")
	f.BoolVar(&g.allowNewMetastore, "allow-new-metastore", false, "start an empty metastore even though the storage holds datasets (a lost lakesql.db is refused otherwise)")
}

// open opens the engine the flags describe. The default workspace is
// created on a new warehouse, and the user is told; a named workspace
// must exist.
func (g *globalFlags) open(ctx context.Context, stderr io.Writer) (*engine.Engine, error) {
	var lvl slog.Level
	if err := lvl.UnmarshalText([]byte(g.logLevel)); err != nil {
		return nil, fmt.Errorf("--log-level: %w", err)
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl}))
	if err := g.checkBackends(); err != nil {
		return nil, err
	}
	env, err := readEnv(os.Getenv)
	if err != nil {
		return nil, err
	}
	g.env = env
	cfg := engine.Config{
		Warehouse: g.warehouse, Workspace: g.workspace, Metastore: g.metastore, Storage: g.storage,
		CreateDefaultWorkspace: g.workspace == "", Logger: logger, NoAudit: lvl > slog.LevelInfo,
		Auth: g.auth, ReadOnly: g.readOnly, AllowNewMetastore: g.allowNewMetastore, SecureFilePriv: g.secureFilePriv,
		RootPassword: env.rootPassword, CompactionMemory: env.compactionMemory, Jobs: env.jobs,
		QueryMemory: env.queryMemory, ServerMemory: env.serverMemory, SpillDir: env.spillDir,
	}
	e, err := engine.Open(ctx, cfg)
	if err != nil {
		return nil, err
	}
	if e.CreatedWorkspace() {
		fmt.Fprintf(stderr, "lakesql: new %s: created workspace %q\n", g.describe(), e.Workspace())
	}
	return e, nil
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	root := newRootCmd(stdin, stdout, stderr)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	return root.ExecuteContext(ctx)
}

func newRootCmd(stdin io.Reader, stdout, stderr io.Writer) *cobra.Command {
	g := &globalFlags{}
	var exec []string
	var format string
	root := &cobra.Command{
		Use:   "lakesql",
		Short: "SQL over a lakehouse: a REPL, a script runner and a MySQL-wire server",
		Long: `lakesql queries and changes a lakehouse with SQL.

Without arguments it starts a REPL on the warehouse (./lake by default,
created with a workspace "main" on first use). With -e it runs statements
and prints their results; with a script on standard input it runs the script.
It exits non-zero on the first error.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Args:          cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			out, err := newPrinter(format, stdout)
			if err != nil {
				return err
			}
			e, err := g.open(cmd.Context(), stderr)
			if err != nil {
				return err
			}
			defer e.Close()
			conn := e.Connect(g.user)
			defer conn.Close()
			switch {
			case len(exec) > 0:
				for _, q := range exec {
					if err := runScript(cmd.Context(), conn, q, out); err != nil {
						return err
					}
				}
				return nil
			case !isTerminal(stdin):
				b, err := io.ReadAll(stdin)
				if err != nil {
					return err
				}
				return runScript(cmd.Context(), conn, string(b), out)
			default:
				return repl(cmd.Context(), conn, stdin, stdout, stderr, out)
			}
		},
	}
	g.register(root)
	root.Flags().StringArrayVarP(&exec, "execute", "e", nil, "run these statements (separated by ;) and exit")
	root.Flags().StringVar(&format, "format", "table", `output format: table, tsv, csv (NULL as \N), json (one object per row: numbers keep their digits, binary is base64)`)
	root.AddCommand(newServeCmd(g, stderr), newVersionCmd(stdout))
	root.AddCommand(newWorkerCmd(g, stdout, stderr))
	root.AddCommand(newCompactCmd(g, stdout, stderr), newFsckCmd(g, stdout, stderr), newExpireCmd(g, stdout, stderr))
	root.AddCommand(newIcebergCmd(g, stdout, stderr))
	return root
}

func isTerminal(r io.Reader) bool {
	f, ok := r.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// runScript runs statements and prints each result; it stops at the first
// error.
func runScript(ctx context.Context, conn *engine.Conn, script string, out printer) error {
	results, err := conn.Query(ctx, script)
	for _, r := range results {
		if perr := out.print(r); perr != nil {
			return perr
		}
	}
	return err
}
