package engine

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	sqle "github.com/dolthub/go-mysql-server"
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/go-mysql-server/sql/variables"

	"github.com/lakesql/lakesql/budget"
	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/catalogstore/blob"
	"github.com/lakesql/lakesql/catalogstore/blob/gcs"
	"github.com/lakesql/lakesql/catalogstore/blob/local"
	"github.com/lakesql/lakesql/catalogstore/meta"
	"github.com/lakesql/lakesql/catalogstore/meta/firestore"
	"github.com/lakesql/lakesql/catalogstore/meta/sqlite"
	"github.com/lakesql/lakesql/ddl"
	"github.com/lakesql/lakesql/engine/bounded"
	"github.com/lakesql/lakesql/engine/jobs"
	"github.com/lakesql/lakesql/engine/rewrite"
	"github.com/lakesql/lakesql/mysqlfix"
	"github.com/lakesql/lakesql/provider"
)

// DefaultWorkspace is the workspace a new embedded warehouse gets.
const DefaultWorkspace = "main"

// Config configures an Engine. The zero value (plus Warehouse) is the
// embedded default: a SQLite metastore and a local folder.
type Config struct {
	// Warehouse is the local folder of the embedded default (./lake).
	Warehouse string
	// Metastore selects a production metastore: firestore://PROJECT[/DATABASE].
	// Empty: SQLite in the warehouse folder.
	Metastore string
	// Storage selects a production object store: gs://BUCKET/PREFIX, or a
	// folder. Empty: the warehouse folder.
	Storage string
	// Workspace is the session's workspace at connect time. Empty: the
	// default workspace.
	Workspace string
	// CreateDefaultWorkspace creates Workspace if it is missing (the REPL's
	// first run on a new warehouse). Otherwise a missing workspace is an
	// error: workspaces are never created implicitly.
	CreateDefaultWorkspace bool
	// AllowNewMetastore lets CreateDefaultWorkspace initialise an empty
	// metastore although the storage holds datasets (their metastore was
	// lost: catalogstore.ErrMetastoreLost). Without it Open refuses, so a
	// lost lakesql.db never turns into an empty warehouse.
	AllowNewMetastore bool
	// ReadOnly refuses every write.
	ReadOnly bool
	// SecureFilePriv is the only server folder LOAD_FILE, SELECT … INTO
	// OUTFILE/DUMPFILE and LOAD DATA INFILE may touch (MySQL's
	// secure_file_priv), and then only for users with the FILE privilege.
	// Empty: server files are off (MySQL's secure_file_priv = NULL).
	SecureFilePriv string
	// Auth requires MySQL users (CREATE USER, persisted in the metastore);
	// without it root connects without a password, and the server should
	// listen on loopback only.
	Auth bool
	// Logger receives logs; nil uses slog.Default().
	Logger *slog.Logger
	// NoAudit turns off the catalog's audit lines.
	NoAudit bool
	// ManifestChain bounds the delta manifest chains commits write (the
	// zero value: catalogstore's defaults).
	ManifestChain catalogstore.ChainPolicy
	// RootPassword creates root on a server with Auth whose metastore has
	// no users yet (cmd/lakesql reads it from LAKESQL_ROOT_PASSWORD).
	RootPassword string
	// CompactionMemory bounds, in bytes, what a CALL compaction holds in
	// memory (0: maintenance.DefaultRAMMB MiB).
	CompactionMemory int64
	// QueryMemory is the default per-query memory budget in bytes (the
	// global lakesql_query_memory; 0: a quarter of the machine's memory,
	// read once here). Sessions may change theirs.
	QueryMemory int64
	// ServerMemory is the server's memory cap in bytes, which every
	// query's budget draws from (the global lakesql_server_memory; 0:
	// half of the machine's memory).
	ServerMemory int64
	// SpillDir is where sorts past the budget write their runs (empty:
	// the OS's temporary folder).
	SpillDir string
	// Jobs says how materialized-view refreshes run and where alerts go
	// (the zero value: an in-process pool, alerts on stdout).
	Jobs jobs.Config
	// WrapStores, if set, wraps the opened metastore and object store
	// (fault-injection tests: faultblob and the like).
	WrapStores func(meta.Store, blob.Store) (meta.Store, blob.Store)
}

// Engine is lakesql's SQL engine: GMS over the catalog. It is safe for
// concurrent use by many sessions.
type Engine struct {
	cfg    Config
	gms    *sqle.Engine
	cat    *catalogstore.Catalog
	prov   *provider.Provider
	parser sql.Parser
	log    *slog.Logger
	close  []func() error
	// created: Open created the configured workspace.
	created bool
	// jobs: materialized-view refresh queue and alerting.
	jobs *jobs.Jobs
	// hydrator fills deferred statistics in the background.
	hydrator *jobs.Hydrator
	// running counts embedded statements in flight (the wire server's are
	// in GMS's process list); releaser returns idle heap to the OS.
	running  atomic.Int64
	releaser *memReleaser
	// pool is the server's memory cap all query budgets draw from.
	pool *budget.Pool
}

// Open opens the stores named by cfg and assembles the engine.
func Open(ctx context.Context, cfg Config) (*Engine, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	if cfg.Warehouse == "" {
		cfg.Warehouse = "lake"
	}
	if cfg.Workspace == "" {
		cfg.Workspace = DefaultWorkspace
	}
	e := &Engine{cfg: cfg, log: cfg.Logger, pool: budget.NewPool(serverMemoryDefault(cfg))}
	ms, err := openMeta(ctx, cfg)
	if err != nil {
		return nil, err
	}
	e.close = append(e.close, ms.Close)
	bs, err := openBlob(ctx, cfg)
	if err != nil {
		e.Close()
		return nil, err
	}
	e.close = append(e.close, bs.Close)
	if cfg.WrapStores != nil {
		ms, bs = cfg.WrapStores(ms, bs)
	}
	e.cat = catalogstore.New(ms, bs, catalogstore.Options{Logger: cfg.Logger, NoAudit: cfg.NoAudit, Chain: cfg.ManifestChain})
	if _, err := e.cat.Workspace(ctx, cfg.Workspace); errors.Is(err, catalogstore.ErrWorkspaceNotFound) && cfg.CreateDefaultWorkspace {
		if !cfg.AllowNewMetastore {
			if err := e.cat.CheckNotLost(ctx); err != nil {
				e.Close()
				return nil, lostMetastore(cfg, err)
			}
		}
		if _, err := e.cat.CreateWorkspace(ctx, cfg.Workspace, "lakesql"); err != nil && !errors.Is(err, catalogstore.ErrWorkspaceExists) {
			e.Close()
			return nil, err
		}
		e.created = true
	} else if err != nil {
		e.Close()
		return nil, err
	}
	initVariables(cfg)
	e.prov = provider.New(e.cat)
	e.close = append(e.close, e.prov.Close)
	registerProcedures(e)
	installAuth()
	a := rewrite.AddRules(mysqlfix.AddRules(analyzer.NewBuilder(e.prov)).AddPreAnalyzeRule(ruleEnforceEgress, enforceEgress).
		AddPreAnalyzeRule(ruleCanonicalGrants, canonicalGrants).AddPreAnalyzeRule(ruleFileGuard, fileGuard(cfg))).Build()
	a.ExecBuilder = guardedBuilder{inner: mysqlfix.StrictWrites{Inner: mysqlfix.CSVLoads{Inner: mysqlfix.CSVOutfiles{Inner: mysqlfix.TraditionalExplain{Inner: mysqlfix.TimeTypeNames{Inner: bounded.NewBuilder(cfg.SpillDir)}}}}}}
	e.prov.SetFileGuard(mysqlfix.FileGuard{Dir: cfg.SecureFilePriv, ReadOnly: cfg.ReadOnly, Users: a.Catalog.MySQLDb})
	// Table statistics from the manifests (and ANALYZE TABLE) for GMS's
	// planner and information_schema.column_statistics.
	stats := provider.NewStatsProvider()
	a.Catalog.StatsProvider = stats
	// Join order and build sides from the same statistics.
	a.Coster = rewrite.NewCoster(stats)
	mysqlfix.InstallSemiJoinProjectionFix(a)
	mysqlfix.RegisterFunctions(sql.NewEmptyContext(), a)
	e.gms = sqle.New(a, &sqle.Config{IsReadOnly: cfg.ReadOnly})
	if err := setupUsers(ctx, e.gms, ms, cfg.Auth, cfg.RootPassword); err != nil {
		e.Close()
		return nil, err
	}
	e.parser = mysqlfix.NewCallGuard(mysqlfix.NewDMLFix(ddl.NewParser(mysqlfix.NewParser(sql.NewMysqlParser())), e.gms.Analyzer.Catalog), e.gms.Analyzer.Catalog)
	e.gms.Parser = e.parser
	// GMS's planner and analyzer reach the parser through this global too
	// (views, triggers): install ours there once.
	sql.GlobalParser = e.parser
	e.releaser = startMemReleaser(e.busy, e.log)
	e.close = append(e.close, e.releaser.Close)
	e.hydrator = jobs.StartHydrator(e.cat, e.log)
	e.close = append(e.close, e.hydrator.Close)
	if e.jobs, err = jobs.Start(e.cat, cfg.Jobs, e.runJobByID, e.hydrator.AfterCommit); err != nil {
		e.Close()
		return nil, err
	}
	e.close = append(e.close, e.jobs.Close)
	return e, nil
}

// CreatedWorkspace reports whether Open created the configured workspace
// (a new warehouse), so a front end can say so.
func (e *Engine) CreatedWorkspace() bool { return e.created }

// Workspace is the workspace new sessions start in.
func (e *Engine) Workspace() string { return e.cfg.Workspace }

// Catalog returns the engine's catalog.
func (e *Engine) Catalog() *catalogstore.Catalog { return e.cat }

// GMS returns the underlying go-mysql-server engine.
func (e *Engine) GMS() *sqle.Engine { return e.gms }

// Close releases the engine and its stores.
func (e *Engine) Close() error {
	var first error
	if e.gms != nil {
		if err := e.gms.Close(); err != nil && first == nil {
			first = err
		}
	}
	for i := len(e.close) - 1; i >= 0; i-- {
		if err := e.close[i](); err != nil && first == nil {
			first = err
		}
	}
	return first
}

// lostMetastore explains catalogstore.ErrMetastoreLost: how to recover.
func lostMetastore(cfg Config, err error) error {
	if !errors.Is(err, catalogstore.ErrMetastoreLost) {
		return err
	}
	where := cfg.Metastore
	restore := "restore it from a backup"
	if where == "" || strings.HasPrefix(where, "sqlite:") {
		where = strings.TrimPrefix(where, "sqlite:")
		if where == "" {
			where = filepath.Join(cfg.Warehouse, "lakesql.db")
		}
		restore = fmt.Sprintf("restore %s (with its -wal file) from a backup", where)
	} else {
		restore = "check the project and database named, or restore the database from a backup (gcloud firestore import)"
	}
	return fmt.Errorf("refusing to initialise metastore %s: %w. The metastore was lost, not new: %s; "+
		"only to start an empty catalog beside these files (they stay invisible to it) pass --allow-new-metastore", where, err, restore)
}

func openMeta(ctx context.Context, cfg Config) (meta.Store, error) {
	switch {
	case cfg.Metastore == "" || strings.HasPrefix(cfg.Metastore, "sqlite:"):
		path := strings.TrimPrefix(cfg.Metastore, "sqlite:")
		if path == "" {
			if err := os.MkdirAll(cfg.Warehouse, 0o755); err != nil {
				return nil, fmt.Errorf("create warehouse %s: %w", cfg.Warehouse, err)
			}
			path = filepath.Join(cfg.Warehouse, "lakesql.db")
		}
		return sqlite.Open(ctx, path)
	case strings.HasPrefix(cfg.Metastore, "firestore://"):
		rest := strings.TrimPrefix(cfg.Metastore, "firestore://")
		project, database, _ := strings.Cut(rest, "/")
		if project == "" {
			return nil, fmt.Errorf("metastore %q: name a project, firestore://PROJECT[/DATABASE]", cfg.Metastore)
		}
		return firestore.Open(ctx, project, database)
	default:
		return nil, fmt.Errorf("metastore %q: use firestore://PROJECT[/DATABASE] or sqlite:PATH", cfg.Metastore)
	}
}

func openBlob(ctx context.Context, cfg Config) (blob.Store, error) {
	switch {
	case strings.HasPrefix(cfg.Storage, "gs://"):
		return gcs.Open(ctx, cfg.Storage)
	case cfg.Storage == "":
		return local.Open(cfg.Warehouse)
	default:
		return local.Open(strings.TrimPrefix(cfg.Storage, "file://"))
	}
}

// SysVarWorkspace is the session variable that selects the workspace:
// SET lakehouse_workspace = 'w'.
const SysVarWorkspace = "lakehouse_workspace"

// initVariables registers lakesql's system variables in GMS's registry
// (a process-wide GMS global) and brands the server.
func initVariables(cfg Config) {
	if sql.SystemVariables == nil {
		variables.InitSystemVariables()
	}
	both := sql.GetMysqlScope(sql.SystemVariableScope_Both)
	for _, v := range []*sql.MysqlSystemVariable{
		{Name: SysVarWorkspace, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Session), Dynamic: true,
			Type: types.NewSystemStringType(SysVarWorkspace), Default: ""},
		{Name: provider.SysVarDeferredStats, Scope: both, Dynamic: true,
			Type: types.NewSystemBoolType(provider.SysVarDeferredStats), Default: int8(0)},
		{Name: rewrite.SysVarDecorrelate, Scope: both, Dynamic: true,
			Type: types.NewSystemBoolType(rewrite.SysVarDecorrelate), Default: int8(1)},
		{Name: rewrite.SysVarJoinRewrites, Scope: both, Dynamic: true,
			Type: types.NewSystemBoolType(rewrite.SysVarJoinRewrites), Default: int8(1)},
		{Name: rewrite.SysVarStatsCoster, Scope: both, Dynamic: true,
			Type: types.NewSystemBoolType(rewrite.SysVarStatsCoster), Default: int8(1)},
		{Name: SysVarQueryMemory, Scope: both, Dynamic: true,
			Type: types.NewSystemIntType(SysVarQueryMemory, 0, 1<<62, false), Default: queryMemoryDefault(cfg)},
		{Name: SysVarServerMemory, Scope: sql.GetMysqlScope(sql.SystemVariableScope_Global), Dynamic: true,
			Type: types.NewSystemIntType(SysVarServerMemory, 0, 1<<62, false), Default: serverMemoryDefault(cfg)},
	} {
		// The registry is process-wide: a second engine finds them there.
		if _, _, ok := sql.SystemVariables.GetGlobal(v.Name); !ok {
			sql.SystemVariables.AddSystemVariables([]sql.SystemVariable{v})
		}
	}
	_ = sql.SystemVariables.AssignValues(map[string]any{"version_comment": "lakesql"})
	// An engine configured with a budget sets the process's global one
	// (the registry is shared: the first engine registered the default).
	if cfg.QueryMemory > 0 {
		_ = sql.SystemVariables.AssignValues(map[string]any{SysVarQueryMemory: cfg.QueryMemory})
	}
	if cfg.ServerMemory > 0 {
		_ = sql.SystemVariables.AssignValues(map[string]any{SysVarServerMemory: cfg.ServerMemory})
	}
	// MySQL 8's max_allowed_packet (GMS starts at 1 GiB), unless a SET
	// GLOBAL in this process chose otherwise.
	if _, v, _ := sql.SystemVariables.GetGlobal("max_allowed_packet"); v == int64(1<<30) {
		_ = sql.SystemVariables.AssignValues(map[string]any{"max_allowed_packet": int64(DefaultMaxAllowedPacket)})
	}
}

// queryMemoryDefault is Config.QueryMemory, else a quarter of the
// machine's memory.
func queryMemoryDefault(cfg Config) int64 {
	if cfg.QueryMemory > 0 {
		return cfg.QueryMemory
	}
	return budget.DefaultLimit()
}

// DefaultMaxAllowedPacket is MySQL 8's max_allowed_packet default (64 MiB).
const DefaultMaxAllowedPacket = 64 << 20
