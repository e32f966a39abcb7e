package ddl

import (
	"errors"
	"fmt"
	"strings"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"
	ast "github.com/dolthub/vitess/go/vt/sqlparser"

	"github.com/lakesql/lakesql/catalogstore"
)

// RenameTable is RENAME TABLE a TO b [, c TO d …] and ALTER TABLE a
// RENAME [TO | AS] b where some name is qualified. GMS v0.20.0 drops the
// qualifiers and renames in the session's current database: `RENAME
// TABLE d.u TO d.v` with database o selected renamed o.u, and with none
// selected failed 1046. Unqualified forms stay GMS's. The pairs run in
// order (so a swap through a temporary name works), and a failure renames
// the done ones back, as MySQL's RENAME TABLE is all or nothing.
type RenameTable struct {
	Pairs []RenamePair
	Alter bool // spelled ALTER TABLE … RENAME
}

// RenamePair is one `from TO to` of a RenameTable.
type RenamePair struct{ From, To TableName }

func (s *RenameTable) String() string {
	if s.Alter {
		return "ALTER TABLE " + s.Pairs[0].From.String() + " RENAME TO " + s.Pairs[0].To.String()
	}
	parts := make([]string, len(s.Pairs))
	for i, p := range s.Pairs {
		parts[i] = p.From.String() + " TO " + p.To.String()
	}
	return "RENAME TABLE " + strings.Join(parts, ", ")
}

// auth asks MySQL's privileges: ALTER and DROP on each old name, CREATE
// and INSERT on each new one (GMS's rename check, groups of four names).
func (s *RenameTable) auth() ast.AuthInformation {
	var names []string
	for _, p := range s.Pairs {
		names = append(names, p.From.DB, p.From.Name, p.To.DB, p.To.Name)
	}
	return ast.AuthInformation{AuthType: ast.AuthType_RENAME, TargetType: ast.AuthTargetType_Ignore, TargetNames: names}
}

func parseRenameTable(s *scanner) (Statement, error) {
	st := &RenameTable{}
	for {
		from, err := parseTableName(s, "table")
		if err != nil {
			return nil, err
		}
		if err := s.expect("TO"); err != nil {
			return nil, err
		}
		to, err := parseTableName(s, "table")
		if err != nil {
			return nil, err
		}
		st.Pairs = append(st.Pairs, RenamePair{From: from, To: to})
		if s.peek().typ != ',' {
			break
		}
		s.next()
	}
	if !st.qualified() {
		return nil, nil // GMS renames in the current database, correctly
	}
	return st, nil
}

// parseAlterRename claims ALTER TABLE a RENAME [TO | AS] b with a
// qualified name and nothing else; every other ALTER TABLE is declined.
func parseAlterRename(s *scanner) (Statement, error) {
	from, err := parseTableName(s, "table")
	if err != nil || !s.accept("RENAME") || s.peek().is("COLUMN") || s.peek().is("INDEX") || s.peek().is("KEY") {
		return nil, nil
	}
	if !s.accept("TO") {
		s.accept("AS")
	}
	to, err := parseTableName(s, "table")
	if err != nil || !s.peek().isEnd() {
		return nil, nil
	}
	st := &RenameTable{Pairs: []RenamePair{{From: from, To: to}}, Alter: true}
	if !st.qualified() {
		return nil, nil
	}
	return st, nil
}

func (s *RenameTable) qualified() bool {
	for _, p := range s.Pairs {
		if p.From.DB != "" || p.To.DB != "" {
			return true
		}
	}
	return false
}

func (s *RenameTable) schema() sql.Schema { return types.OkResultSchema }
func (s *RenameTable) readOnly() bool     { return false }

func (s *RenameTable) exec(ctx *sql.Context, sess Session) (sql.RowIter, error) {
	type move struct{ from, to catalogstore.Ident }
	var moves []move
	for _, p := range s.Pairs {
		from, err := resolveTable(ctx, sess, p.From)
		if err != nil {
			return nil, err
		}
		to, err := resolveTable(ctx, sess, p.To)
		if err != nil {
			return nil, err
		}
		if from.Workspace != to.Workspace {
			return nil, fmt.Errorf("%w: %s and %s are in different workspaces; a table cannot move between workspaces", catalogstore.ErrNotSupported, from.Short(), to.Short())
		}
		moves = append(moves, move{from, to})
	}
	cat := sess.Catalog()
	for i, m := range moves {
		err := cat.RenameDataset(ctx, m.from, m.to, sess.Author())
		if errors.Is(err, catalogstore.ErrDatasetNotFound) {
			err = sql.ErrTableNotFound.New(m.from.Short())
		}
		if err == nil {
			continue
		}
		for j := i - 1; j >= 0; j-- {
			if uerr := cat.RenameDataset(ctx, moves[j].to, moves[j].from, sess.Author()); uerr != nil {
				return nil, fmt.Errorf("%w (and renaming %s back to %s failed: %v)", err, moves[j].to.Short(), moves[j].from.Short(), uerr)
			}
		}
		return nil, err
	}
	return okResult(0)
}
