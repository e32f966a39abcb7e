package provider

import (
	"fmt"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/types"

	"github.com/lakesql/lakesql/catalogstore"
	"github.com/lakesql/lakesql/sqlerr"
)

// fileFunction is the factory of a table function over files
// (read_parquet, read_csv): GMS calls NewInstance with the arguments,
// which must be constants, and uses the node build returns. The factory
// itself is never executed.
type fileFunction struct {
	p     *Provider
	name  string
	db    sql.Database
	build func(ctx *sql.Context, db sql.Database, args []string) (sql.Node, error)
}

var _ sql.TableFunction = (*fileFunction)(nil)

// NewInstance implements sql.TableFunction.
func (f *fileFunction) NewInstance(ctx *sql.Context, db sql.Database, args []sql.Expression) (sql.Node, error) {
	strs := make([]string, len(args))
	for i, a := range args {
		v, err := a.Eval(ctx, nil)
		if err != nil {
			return nil, err
		}
		if v == nil {
			return nil, sqlerr.Wrap(fmt.Errorf("%w: %s: argument %d is NULL", catalogstore.ErrBadValue, f.name, i+1))
		}
		s, _, err := types.LongText.Convert(ctx, v)
		if err != nil {
			return nil, err
		}
		strs[i] = s.(string)
	}
	n, err := f.build(ctx, db, strs)
	return n, sqlerr.Wrap(err)
}

func (f *fileFunction) Name() string                  { return f.name }
func (f *fileFunction) Database() sql.Database        { return f.db }
func (f *fileFunction) Expressions() []sql.Expression { return nil }
func (f *fileFunction) Resolved() bool                { return true }
func (f *fileFunction) IsReadOnly() bool              { return true }
func (f *fileFunction) String() string                { return f.name }
func (f *fileFunction) Schema() sql.Schema            { return nil }
func (f *fileFunction) Children() []sql.Node          { return nil }

func (f *fileFunction) WithDatabase(db sql.Database) (sql.Node, error) {
	cp := *f
	cp.db = db
	return &cp, nil
}

func (f *fileFunction) WithExpressions(e ...sql.Expression) (sql.Node, error) {
	if len(e) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(e), 0)
	}
	return f, nil
}

func (f *fileFunction) WithChildren(ch ...sql.Node) (sql.Node, error) {
	if len(ch) != 0 {
		return nil, sql.ErrInvalidChildrenNumber.New(f, len(ch), 0)
	}
	return f, nil
}
