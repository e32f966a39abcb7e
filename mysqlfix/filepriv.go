package mysqlfix

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/mysql_db"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
)

// Errors of the server-file guard; sqlerr maps them to MySQL's codes
// (1227, 1290, 1290). Their text is MySQL's.
var (
	// ErrFilePrivilege: the user lacks the global FILE privilege.
	ErrFilePrivilege = errors.New("Access denied; you need (at least one of) the FILE privilege(s) for this operation")
	// ErrSecureFilePriv: the path is outside secure_file_priv, or server
	// files are off.
	ErrSecureFilePriv = errors.New("The MySQL server is running with the --secure-file-priv option so it cannot execute this statement")
	// ErrReadOnlyFile: SELECT … INTO OUTFILE/DUMPFILE on a read-only server.
	ErrReadOnlyFile = errors.New("The MySQL server is running with the --read-only option so it cannot execute this statement")
)

// FileGuard confines GMS's server-file operations — LOAD_FILE(),
// SELECT … INTO OUTFILE / DUMPFILE and LOAD DATA INFILE (not LOCAL, which
// reads the client's file) — the way MySQL's secure_file_priv and FILE
// privilege do. GMS checks neither the privilege nor, with its default
// empty secure_file_priv, the path, and reads the directory setting from a
// process-wide variable; the guard carries its own per engine.
type FileGuard struct {
	// Dir is the only folder whose files may be read or written. Empty:
	// server files are off (MySQL's secure_file_priv = NULL).
	Dir string
	// ReadOnly refuses INTO OUTFILE / DUMPFILE.
	ReadOnly bool
	// Users decides who holds FILE; nil or disabled (no --auth): everyone.
	Users *mysql_db.MySQLDb
}

// Guard checks every server-file operation in n (subqueries included): the
// privilege and read-only mode now, before anything is read or written,
// and rewrites the paths of INTO OUTFILE and LOAD DATA to their resolved
// form inside Dir. LOAD_FILE's argument may vary per row, so it becomes a
// guarded expression that confines each path when evaluated.
func (g FileGuard) Guard(ctx *sql.Context, n sql.Node) (sql.Node, transform.TreeIdentity, error) {
	n, same1, err := transform.NodeWithOpaque(n, func(n sql.Node) (sql.Node, transform.TreeIdentity, error) {
		switch n := n.(type) {
		case *plan.Into:
			return g.into(ctx, n)
		case *plan.LoadData:
			if n.Local {
				return n, transform.SameTree, nil
			}
			if err := g.allowed(ctx); err != nil {
				return nil, transform.SameTree, err
			}
			p, err := g.readPath(n.File)
			if err != nil {
				return nil, transform.SameTree, err
			}
			c := *n
			c.File = p
			return &c, transform.NewTree, nil
		}
		return n, transform.SameTree, nil
	})
	if err != nil {
		return nil, transform.SameTree, err
	}
	n, same2, err := transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch e := e.(type) {
		case *function.LoadFile:
			if err := g.allowed(ctx); err != nil {
				return nil, transform.SameTree, err
			}
			ch := e.Children()
			if len(ch) != 1 {
				return e, transform.SameTree, nil
			}
			return &guardedLoadFile{g: g, name: ch[0]}, transform.NewTree, nil
		case *plan.Subquery:
			q, same, err := g.Guard(ctx, e.Query)
			if err != nil || same {
				return e, transform.SameTree, err
			}
			return e.WithQuery(q), transform.NewTree, nil
		}
		return e, transform.SameTree, nil
	})
	if err != nil {
		return nil, transform.SameTree, err
	}
	return n, same1 && same2, nil
}

func (g FileGuard) into(ctx *sql.Context, n *plan.Into) (sql.Node, transform.TreeIdentity, error) {
	if n.Outfile == "" && n.Dumpfile == "" {
		return n, transform.SameTree, nil
	}
	if err := g.allowed(ctx); err != nil {
		return nil, transform.SameTree, err
	}
	if g.ReadOnly {
		return nil, transform.SameTree, ErrReadOnlyFile
	}
	c := *n
	var err error
	if c.Outfile != "" {
		c.Outfile, err = g.writePath(c.Outfile)
	} else {
		c.Dumpfile, err = g.writePath(c.Dumpfile)
	}
	if err != nil {
		return nil, transform.SameTree, err
	}
	return &c, transform.NewTree, nil
}

// allowed reports ErrFilePrivilege unless the session's user holds the
// global FILE privilege (MySQL has no narrower FILE grant).
func (g FileGuard) allowed(ctx *sql.Context) error {
	if g.Users == nil || !g.Users.Enabled() {
		return nil
	}
	ps := g.Users.UserActivePrivilegeSet(ctx)
	if ps.Has(sql.PrivilegeType_File) || ps.Has(sql.PrivilegeType_Super) {
		return nil
	}
	return ErrFilePrivilege
}

// root is Dir with every symbolic link resolved.
func (g FileGuard) root() (string, error) {
	if g.Dir == "" {
		return "", ErrSecureFilePriv
	}
	abs, err := filepath.Abs(g.Dir)
	if err != nil {
		return "", fmt.Errorf("%w: %v", ErrSecureFilePriv, err)
	}
	r, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("%w: secure_file_priv %s: %v", ErrSecureFilePriv, g.Dir, err)
	}
	return r, nil
}

// join makes p absolute (a relative path is relative to Dir, as MySQL's
// are to its data folder).
func join(root, p string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(root, p)
}

// inside reports whether p (symbolic links resolved) is root or below it.
func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// readPath resolves an existing file to its real path inside Dir: a
// symbolic link or ".." that leads out is refused. A missing file is
// returned as given (under Dir) for the reader to report.
func (g FileGuard) readPath(p string) (string, error) {
	root, err := g.root()
	if err != nil {
		return "", err
	}
	abs := join(root, p)
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		if !errors.Is(err, os.ErrNotExist) {
			return "", fmt.Errorf("%w: %v", ErrSecureFilePriv, err)
		}
		// Confine the missing file's folder so the error says nothing of
		// paths outside Dir.
		dir, derr := filepath.EvalSymlinks(filepath.Dir(abs))
		if derr != nil || !inside(root, dir) {
			return "", ErrSecureFilePriv
		}
		return filepath.Join(dir, filepath.Base(abs)), nil
	}
	if !inside(root, real) {
		return "", ErrSecureFilePriv
	}
	return real, nil
}

// writePath resolves a file to be created: its folder must resolve inside
// Dir. The file itself must not exist (GMS creates it with O_EXCL, which
// also refuses a dangling symbolic link), so it cannot lead out either.
func (g FileGuard) writePath(p string) (string, error) {
	root, err := g.root()
	if err != nil {
		return "", err
	}
	abs := join(root, p)
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	if err != nil || !inside(root, dir) {
		return "", ErrSecureFilePriv
	}
	return filepath.Join(dir, filepath.Base(abs)), nil
}

// guardedLoadFile is LOAD_FILE(name) confined to the guard's folder: NULL
// for a missing file or one larger than max_allowed_packet (as MySQL),
// ErrSecureFilePriv for a path outside.
type guardedLoadFile struct {
	g    FileGuard
	name sql.Expression
}

var _ sql.FunctionExpression = (*guardedLoadFile)(nil)

func (l *guardedLoadFile) FunctionName() string       { return "load_file" }
func (l *guardedLoadFile) Description() string        { return "returns a file's contents" }
func (l *guardedLoadFile) Resolved() bool             { return l.name.Resolved() }
func (l *guardedLoadFile) String() string             { return fmt.Sprintf("LOAD_FILE(%s)", l.name) }
func (l *guardedLoadFile) Type() sql.Type             { return types.LongBlob }
func (l *guardedLoadFile) IsNullable() bool           { return true }
func (l *guardedLoadFile) Children() []sql.Expression { return []sql.Expression{l.name} }

func (l *guardedLoadFile) WithChildren(ch ...sql.Expression) (sql.Expression, error) {
	if len(ch) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(l, len(ch), 1)
	}
	return &guardedLoadFile{g: l.g, name: ch[0]}, nil
}

func (l *guardedLoadFile) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := l.name.Eval(ctx, row)
	if err != nil || v == nil {
		return nil, err
	}
	s, _, err := types.LongText.Convert(ctx, v)
	if err != nil {
		return nil, err
	}
	p, err := l.g.readPath(s.(string))
	if err != nil {
		return nil, err
	}
	f, err := os.Open(p)
	if err != nil {
		return nil, nil // MySQL: NULL when the file cannot be read
	}
	defer f.Close()
	limit := int64(64 << 20)
	if m, err := ctx.GetSessionVariable(ctx, "max_allowed_packet"); err == nil {
		switch n := m.(type) {
		case int64:
			limit = n
		case uint64:
			limit = int64(n)
		}
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, nil
	}
	if int64(len(data)) > limit {
		return nil, nil
	}
	return data, nil
}

// Allowed reports ErrFilePrivilege unless the session's user holds FILE,
// for server-side reads that are not local files (an object store URI
// read with the server's credentials).
func (g FileGuard) Allowed(ctx *sql.Context) error { return g.allowed(ctx) }

// ReadPath confines a server file lakesql's own statements read
// (add_files, read_parquet, read_csv): the FILE privilege, then the path
// resolved inside Dir (ErrSecureFilePriv otherwise). It returns the
// resolved path.
func (g FileGuard) ReadPath(ctx *sql.Context, p string) (string, error) {
	if err := g.allowed(ctx); err != nil {
		return "", err
	}
	return g.readPath(p)
}

// WritePath confines a server file lakesql's own statements write
// (export_parquet): the FILE privilege, a writable server
// (ErrReadOnlyFile), and the file's folder resolved inside Dir. It returns
// the resolved path.
func (g FileGuard) WritePath(ctx *sql.Context, p string) (string, error) {
	if err := g.allowed(ctx); err != nil {
		return "", err
	}
	if g.ReadOnly {
		return "", ErrReadOnlyFile
	}
	return g.writePath(p)
}
