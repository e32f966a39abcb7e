package mysqlfix

import (
	"github.com/dolthub/go-mysql-server/sql"
	"github.com/dolthub/go-mysql-server/sql/expression"
	"github.com/dolthub/go-mysql-server/sql/expression/function/aggregation"
	"github.com/dolthub/go-mysql-server/sql/transform"
	"github.com/dolthub/go-mysql-server/sql/types"
	"github.com/shopspring/decimal"
)

// SUM and AVG as window functions. GMS v0.20.0 types them as their
// argument (SUM(int) OVER … is INT, AVG too) and sums in float64 with
// NULLs counted as 0, so over a frame of only NULLs SUM answers 0 and AVG
// 0/0: NaN, which an INT column sends as -2147483648 and a DECIMAL one
// fails on (1105 "Cannot create a Decimal from NaN"); a value that fails
// to evaluate is skipped silently. MySQL types them as the aggregates
// (SUM(DECIMAL(p,s)) OVER … is DECIMAL(p+22,s), exact), answers NULL
// over a frame without a value, and fails the statement with the
// value's error. windowSum does that, with prefix sums over the partition
// as GMS does (a frame is the difference of two prefixes).

// isDistinct reports whether an aggregate's argument is DISTINCT x.
func isDistinct(e sql.Expression) bool {
	_, ok := e.(*expression.DistinctExpression)
	return ok
}

// windowSum is SUM (avg false) or AVG over a window frame.
type windowSum struct {
	expr   sql.Expression
	framer sql.WindowFramer
	avg    bool
	exact  bool  // DECIMAL arithmetic; else float64, as MySQL for DOUBLE
	scale  int32 // the result's scale, when exact

	start int               // the partition's first row
	dec   []decimal.Decimal // prefix sums: of the partition's rows up to i
	flt   []float64
	n     []int64 // prefix counts of non-NULL values
}

var _ sql.WindowFunction = (*windowSum)(nil)

// newWindowSum is the window function for an aggregate of type typ over
// child, in window w.
func newWindowSum(child sql.Expression, w *sql.WindowDefinition, typ sql.Type, avg bool) (sql.WindowFunction, error) {
	c, err := transform.Clone(child)
	if err != nil {
		return nil, err
	}
	f := &windowSum{expr: c, avg: avg}
	if d, ok := typ.(sql.DecimalType); ok {
		f.exact, f.scale = true, int32(d.Scale())
	}
	switch {
	case w == nil:
	case w.Frame != nil:
		if f.framer, err = w.Frame.NewFramer(w); err != nil {
			return nil, err
		}
	case len(w.OrderBy) > 0:
		f.framer = &toPeersFramer{PeerGroupFramer: aggregation.NewPeerGroupFramer(w.OrderBy.ToExpressions())}
	}
	return f, nil
}

// toPeersFramer is MySQL's frame for a window with ORDER BY and no frame
// clause, RANGE BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW: the
// partition's first row through the current row's last peer (the rows
// equal to it on every ORDER BY key). GMS's default for SUM and AVG ends
// at the current row, so tied rows got different running totals.
type toPeersFramer struct {
	*aggregation.PeerGroupFramer
	start int // the partition's first row
}

func (f *toPeersFramer) NewFramer(interval sql.WindowInterval) (sql.WindowFramer, error) {
	pg, err := f.PeerGroupFramer.NewFramer(interval)
	if err != nil {
		return nil, err
	}
	return &toPeersFramer{PeerGroupFramer: pg.(*aggregation.PeerGroupFramer), start: interval.Start}, nil
}

func (f *toPeersFramer) Next(ctx *sql.Context, buf sql.WindowBuffer) (sql.WindowInterval, error) {
	iv, err := f.PeerGroupFramer.Next(ctx, buf)
	iv.Start = f.start
	return iv, err
}

func (f *toPeersFramer) FirstIdx() int { return f.start }

func (f *toPeersFramer) Interval() (sql.WindowInterval, error) {
	iv, err := f.PeerGroupFramer.Interval()
	iv.Start = f.start
	return iv, err
}

func (f *windowSum) Dispose() { expression.Dispose(f.expr) }

// DefaultFramer is the frame of the window (see newWindowSum), else
// GMS's default: with neither ORDER BY nor a frame clause the binder gave
// the window the whole partition.
func (f *windowSum) DefaultFramer() sql.WindowFramer {
	if f.framer != nil {
		return f.framer
	}
	return aggregation.NewUnboundedPrecedingToCurrentRowFramer()
}

// StartPartition computes the partition's prefix sums and counts.
func (f *windowSum) StartPartition(ctx *sql.Context, interval sql.WindowInterval, buf sql.WindowBuffer) error {
	f.Dispose()
	size := interval.End - interval.Start
	f.start = interval.Start
	f.n = make([]int64, size)
	f.dec, f.flt = nil, nil
	if f.exact {
		f.dec = make([]decimal.Decimal, size)
	} else {
		f.flt = make([]float64, size)
	}
	var n int64
	var d decimal.Decimal
	var x float64
	for i := range size {
		v, err := f.expr.Eval(ctx, buf[interval.Start+i])
		if err != nil {
			return err
		}
		if v != nil {
			n++
			if f.exact {
				dv, err := toDecimal(ctx, f.expr.Type(), v)
				if err != nil {
					return err
				}
				d = d.Add(dv)
			} else {
				fv, _, err := types.Float64.Convert(ctx, v)
				if err != nil {
					return err
				}
				x += fv.(float64)
			}
		}
		f.n[i] = n
		if f.exact {
			f.dec[i] = d
		} else {
			f.flt[i] = x
		}
	}
	return nil
}

// Compute is the frame's SUM or AVG; NULL when the frame has no value.
func (f *windowSum) Compute(_ *sql.Context, interval sql.WindowInterval, _ sql.WindowBuffer) any {
	lo, hi := interval.Start-f.start-1, interval.End-f.start-1 // prefixes before and at the frame's end
	if hi < 0 || hi < lo {
		return nil
	}
	n := f.n[hi]
	if lo >= 0 {
		n -= f.n[lo]
	}
	if n == 0 {
		return nil
	}
	if f.exact {
		sum := f.dec[hi]
		if lo >= 0 {
			sum = sum.Sub(f.dec[lo])
		}
		return DecimalResult(sum, n, f.scale, f.avg)
	}
	sum := f.flt[hi]
	if lo >= 0 {
		sum -= f.flt[lo]
	}
	if f.avg {
		return sum / float64(n)
	}
	return sum
}

// NewWindowFunction implements sql.WindowAdaptableExpression.
func (s *Sum) NewWindowFunction() (sql.WindowFunction, error) {
	return newWindowSum(s.Child, s.Window(), s.typ, false)
}

// WithWindow implements sql.WindowAdaptableExpression.
func (s *Sum) WithWindow(w *sql.WindowDefinition) sql.WindowAdaptableExpression {
	return &Sum{Sum: s.Sum.WithWindow(w).(*aggregation.Sum), typ: s.typ}
}

// NewWindowFunction implements sql.WindowAdaptableExpression.
func (a *Avg) NewWindowFunction() (sql.WindowFunction, error) {
	return newWindowSum(a.Child, a.Window(), a.typ, true)
}

// WithWindow implements sql.WindowAdaptableExpression.
func (a *Avg) WithWindow(w *sql.WindowDefinition) sql.WindowAdaptableExpression {
	return &Avg{Avg: a.Avg.WithWindow(w).(*aggregation.Avg), typ: a.typ}
}
