package mysqlfix

import (
	"strings"
	"time"
	"unicode/utf8"

	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/analyzer"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function"
	"github.com/dolthub/go-mysql-server/sql/plan"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/dolthub/vitess/go/sqltypes"
)

// GMS v0.20.0 pads LPAD and RPAD by bytes, so LPAD('é', 3, '*') is '*é'
// (MySQL counts characters: '**é') and a multi-byte pad string can be cut
// inside a character; and its CAST of a DATE AS CHAR prints a DATETIME
// ('2024-01-15 00:00:00', MySQL '2024-01-15').

// stringFunctions swaps LPAD and RPAD for CharPad and gives a CAST of a
// DATE to CHAR the date's text.
func stringFunctions(_ *sql.Context, _ *analyzer.Analyzer, n sql.Node, _ *plan.Scope, _ analyzer.RuleSelector, _ *sql.QueryFlags) (sql.Node, transform.TreeIdentity, error) {
	return transform.NodeExprsWithOpaque(n, func(e sql.Expression) (sql.Expression, transform.TreeIdentity, error) {
		switch x := e.(type) {
		case *function.Pad:
			return &CharPad{Pad: x, left: x.FunctionName() == "lpad"}, transform.NewTree, nil
		case *expression.Convert:
			if !types.IsText(x.Type()) || x.Child.Type().Type() != sqltypes.Date {
				return e, transform.SameTree, nil
			}
			if _, done := x.Child.(*dateText); done {
				return e, transform.SameTree, nil
			}
			ne, err := x.WithChildren(&dateText{Expression: x.Child})
			return ne, transform.NewTree, err
		}
		return e, transform.SameTree, nil
	})
}

// CharPad is LPAD or RPAD counting characters, MySQL's way: the string
// cut to len characters, or padded with whole characters of the pad
// string repeated (cut to fit).
type CharPad struct {
	*function.Pad
	left bool
}

var _ sql.Expression = (*CharPad)(nil)

// Eval pads by characters. NULL arguments, a negative length and an
// empty pad string where padding is needed give NULL (MySQL's
// Item_func_lpad; GMS gave ”).
func (p *CharPad) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	args := p.Pad.Children()
	vals := make([]any, len(args))
	for i, a := range args {
		v, err := a.Eval(ctx, row)
		if err != nil || v == nil {
			return nil, err
		}
		vals[i] = v
	}
	str, err := text(ctx, vals[0])
	if err != nil {
		return nil, err
	}
	n, _, err := types.Int64.Convert(ctx, vals[1])
	if err != nil {
		return nil, err
	}
	pad, err := text(ctx, vals[2])
	if err != nil {
		return nil, err
	}
	out, ok := padChars(str, n.(int64), pad, p.left)
	if !ok {
		return nil, nil
	}
	return out, nil
}

// text converts a value to its string.
func text(ctx *sql.Context, v any) (string, error) {
	s, _, err := types.LongText.Convert(ctx, v)
	if err != nil {
		return "", err
	}
	out, _, err := sql.Unwrap[string](ctx, s)
	return out, err
}

// maxPadded is the longest padded result, in characters: MySQL answers
// NULL (warning 1301) past max_allowed_packet, 64 MiB by default.
const maxPadded = 64 << 20

// padChars pads or cuts s to n characters with pad; false for NULL.
func padChars(s string, n int64, pad string, left bool) (string, bool) {
	if n < 0 {
		return "", false
	}
	rs := []rune(s)
	if int64(len(rs)) >= n {
		return string(rs[:n]), true
	}
	if pad == "" || n > maxPadded {
		return "", false
	}
	need := int(n) - len(rs)
	pr := []rune(strings.Repeat(pad, need/utf8.RuneCountInString(pad)+1))[:need]
	if left {
		return string(pr) + s, true
	}
	return s + string(pr), true
}

// WithChildren keeps the replacement.
func (p *CharPad) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	x, err := p.Pad.WithChildren(children...)
	if err != nil {
		return nil, err
	}
	if pad, ok := x.(*function.Pad); ok {
		return &CharPad{Pad: pad, left: p.left}, nil
	}
	return x, nil
}

// dateText is a DATE expression read as its 'YYYY-MM-DD' text, for a
// CAST to CHAR.
type dateText struct{ sql.Expression }

var _ sql.Expression = (*dateText)(nil)

func (d *dateText) Type() sql.Type {
	return types.MustCreateString(sqltypes.VarChar, 10, sql.Collation_Default)
}

func (d *dateText) Children() []sql.Expression { return []sql.Expression{d.Expression} }

func (d *dateText) WithChildren(children ...sql.Expression) (sql.Expression, error) {
	if len(children) != 1 {
		return nil, sql.ErrInvalidChildrenNumber.New(d, len(children), 1)
	}
	return &dateText{Expression: children[0]}, nil
}

func (d *dateText) Eval(ctx *sql.Context, row sql.Row) (any, error) {
	v, err := d.Expression.Eval(ctx, row)
	if t, ok := v.(time.Time); ok && err == nil {
		return t.Format(time.DateOnly), nil
	}
	return v, err
}

func (d *dateText) String() string { return d.Expression.String() }
