package reliability

import (
	"context"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// schedEnv is what the clients of one schedule run share.
type schedEnv struct {
	cl       *cluster
	deadline time.Time
	wipes    atomic.Int64 // DROP/TRUNCATEs of the side table begun so far
	// The DDL session is killed like any other: KILL QUERY, KILL
	// CONNECTION (which lets the statement run on while the client goes
	// on to the next, so two DDL statements may overlap) and its server's
	// SIGKILL, mid-DROP or mid-CREATE. A table's sub-documents belong to
	// its incarnation, so a DROP cut short or still running never leaks
	// into the next table of the name, and CREATE MATERIALIZED VIEW
	// creates its view whole before filling it (issue 18).
	// reg is every client's current connection, for KILL.
	regMu sync.Mutex
	reg   map[string]*schedConn
	// errs collects what must fail the test.
	errMu sync.Mutex
	errs  []string
}

func (env *schedEnv) register(name string, sc *schedConn) {
	env.regMu.Lock()
	defer env.regMu.Unlock()
	if sc == nil {
		delete(env.reg, name)
	} else {
		env.reg[name] = sc
	}
}

// victim is a random registered connection: its client, server, generation and id.
func (env *schedEnv) victim(rng *rand.Rand) (name string, server, gen int, id int64, ok bool) {
	env.regMu.Lock()
	defer env.regMu.Unlock()
	if len(env.reg) == 0 {
		return "", 0, 0, 0, false
	}
	names := make([]string, 0, len(env.reg))
	for n := range env.reg {
		names = append(names, n)
	}
	sort.Strings(names)
	name = names[rng.IntN(len(names))]
	sc := env.reg[name]
	return name, sc.server, sc.gen, sc.id, true
}

func (env *schedEnv) errorf(format string, args ...any) {
	env.errMu.Lock()
	defer env.errMu.Unlock()
	env.errs = append(env.errs, fmt.Sprintf(format, args...))
}

// client is one session of the schedule with its own connection, which it
// re-opens (on any server) when it dies.
type client struct {
	name   string
	env    *schedEnv
	prefer int
	sc     *schedConn
}

// ensure opens the connection if there is none.
func (c *client) ensure(ctx context.Context) error {
	if c.sc != nil {
		return nil
	}
	sc, err := c.env.cl.connect(ctx, c.prefer, "s")
	if err != nil {
		return err
	}
	c.sc = sc
	c.env.register(c.name, sc)
	return nil
}

// exec runs q; a connection that died is dropped (the next ensure opens
// another).
func (c *client) exec(ctx context.Context, q string) error {
	if err := c.ensure(ctx); err != nil {
		return err
	}
	err := c.sc.exec(ctx, q)
	if err != nil && classify(err) == outUnknown {
		c.drop()
	}
	if isHung(err) {
		c.env.errorf("%s: %v", c.name, err)
	}
	return err
}

func (c *client) drop() {
	if c.sc != nil {
		c.env.register(c.name, nil)
		c.sc.close()
		c.sc = nil
	}
}

// worker is a client writing ledger units: autocommit INSERT, UPDATE and
// DELETE statements and transactions over the ledger table and the side
// table, each unit recorded with its outcome.
type worker struct {
	client
	id    int
	rng   *rand.Rand
	rowID int64 // the last row id it used
	seq   int64
	live  *idSet // rows it believes present and no unknown unit touched
	// model and frozen are the worker's part of the ledger (ledgerCheck).
	model  map[int64]rowState
	frozen map[int64]*unit
	units  []*unit
}

func newWorker(env *schedEnv, id int, seed uint64) *worker {
	return &worker{
		client: client{name: fmt.Sprintf("worker-%d", id), env: env, prefer: id % len(env.cl.procs)},
		id:     id, rng: rand.New(rand.NewPCG(seed, uint64(id)+1)), live: newIDSet(),
		model: map[int64]rowState{}, frozen: map[int64]*unit{},
		rowID: int64(id) * 100_000_000,
	}
}

// stmt is one statement of a unit and its effect on the ledger rows.
type stmt struct {
	sql    string
	insert []int64 // rows it inserts with value v
	update []int64 // rows it sets to v
	delete []int64
	v      int64
	side   []int64
}

func (w *worker) run(ctx context.Context) {
	defer w.drop()
	for time.Now().Before(w.env.deadline) && ctx.Err() == nil {
		w.seq++
		grp := int64(w.id)*10_000_000 + w.seq
		var stmts []stmt
		tx := w.rng.IntN(100) < 40
		n := 1
		if tx {
			n = 1 + w.rng.IntN(4)
		}
		taken := map[int64]bool{}
		for i := 0; i < n; i++ {
			stmts = append(stmts, w.randomStmt(grp, tx, taken))
		}
		u := &unit{grp: grp, worker: w.id, wipesAtStart: w.env.wipes.Load()}
		sent := 1
		if tx {
			sent = w.runTx(ctx, u, stmts, w.rng.IntN(100) < 85)
		} else {
			u.sql = []string{stmts[0].sql}
			u.err = w.exec(ctx, stmts[0].sql)
			u.outcome = classify(u.err)
		}
		w.record(u, stmts[:sent])
		if u.err != nil && classify(u.err) == outUnknown && ctx.Err() == nil {
			time.Sleep(20 * time.Millisecond) // its server may be restarting
		}
	}
}

// runTx runs BEGIN, the statements and COMMIT (or ROLLBACK), and returns
// how many statements it sent. A transaction whose statement failed is
// rolled back: it is refused, whatever happened to the connection, since
// COMMIT was never sent.
func (w *worker) runTx(ctx context.Context, u *unit, stmts []stmt, commit bool) (sent int) {
	u.sql = append(u.sql, "BEGIN")
	err := w.exec(ctx, "BEGIN")
	for _, s := range stmts {
		if err != nil {
			break
		}
		u.sql = append(u.sql, s.sql)
		sent++
		err = w.exec(ctx, s.sql)
	}
	if err != nil {
		u.outcome, u.err = outRefused, err
		if classify(err) == outRefused {
			if rerr := w.exec(ctx, "ROLLBACK"); rerr != nil && classify(rerr) == outRefused {
				w.env.errorf("%s: ROLLBACK after %v: %v", w.name, err, rerr)
			}
		}
		return sent
	}
	if !commit {
		u.sql = append(u.sql, "ROLLBACK")
		u.outcome = outRefused
		if rerr := w.exec(ctx, "ROLLBACK"); rerr != nil && classify(rerr) == outRefused {
			w.env.errorf("%s: ROLLBACK: %v", w.name, rerr)
		}
		return sent
	}
	u.sql = append(u.sql, "COMMIT")
	u.err = w.exec(ctx, "COMMIT")
	u.outcome = classify(u.err)
	return sent
}

// randomStmt is an INSERT (ledger table, or in a transaction sometimes the
// side table too), UPDATE or DELETE of rows the worker owns, none in taken.
func (w *worker) randomStmt(grp int64, tx bool, taken map[int64]bool) stmt {
	s := stmt{v: grp}
	switch r := w.rng.IntN(100); {
	case r < 20 && w.live.len() > 0:
		s.update = w.pick(1+w.rng.IntN(6), taken)
		s.sql = fmt.Sprintf("UPDATE t SET v = %d WHERE id IN (%s)", grp, joinIDs(s.update))
	case r < 35 && w.live.len() > 0:
		s.delete = w.pick(1+w.rng.IntN(4), taken)
		s.sql = fmt.Sprintf("DELETE FROM t WHERE id IN (%s)", joinIDs(s.delete))
	case r < 50 && tx:
		for i := 0; i < 1+w.rng.IntN(5); i++ {
			w.rowID++
			s.side = append(s.side, w.rowID)
		}
		vals := make([]string, len(s.side))
		for i, id := range s.side {
			vals[i] = fmt.Sprintf("(%d, %d)", id, grp)
		}
		s.sql = "INSERT INTO side (id, grp) VALUES " + strings.Join(vals, ", ")
	default:
		vals := make([]string, 1+w.rng.IntN(20))
		for i := range vals {
			w.rowID++
			s.insert = append(s.insert, w.rowID)
			vals[i] = fmt.Sprintf("(%d, %d, %d)", w.rowID, grp, grp)
		}
		s.sql = "INSERT INTO t (id, grp, v) VALUES " + strings.Join(vals, ", ")
	}
	return s
}

// pick chooses up to k live rows not in taken, and takes them.
func (w *worker) pick(k int, taken map[int64]bool) []int64 {
	var out []int64
	for tries := 0; len(out) < k && tries < 4*k; tries++ {
		id := w.live.at(w.rng.IntN(w.live.len()))
		if !taken[id] {
			taken[id] = true
			out = append(out, id)
		}
	}
	if len(out) == 0 { // all taken: a statement matching nothing
		out = append(out, -1)
	}
	return out
}

// record adds the unit to the ledger and moves the worker's model on.
func (w *worker) record(u *unit, stmts []stmt) {
	u.before, u.after = map[int64]rowState{}, map[int64]rowState{}
	for _, s := range stmts {
		for _, id := range append(append(append([]int64{}, s.insert...), s.update...), s.delete...) {
			if id < 0 {
				continue
			}
			if _, seen := u.before[id]; !seen {
				u.before[id] = w.model[id]
			}
		}
		for _, id := range s.insert {
			u.after[id] = rowState{true, s.v}
		}
		for _, id := range s.update {
			if id >= 0 {
				u.after[id] = rowState{true, s.v}
			}
		}
		for _, id := range s.delete {
			if id >= 0 {
				u.after[id] = rowState{}
			}
		}
		u.side = append(u.side, s.side...)
	}
	w.units = append(w.units, u)
	for id := range u.before {
		switch u.outcome {
		case outAcked:
			w.model[id] = u.after[id]
		case outRefused:
			w.model[id] = u.before[id]
		case outUnknown:
			delete(w.model, id)
			w.frozen[id] = u
		}
		if u.outcome != outUnknown && w.model[id].present {
			w.live.add(id)
		} else {
			w.live.remove(id)
		}
	}
}

func joinIDs(ids []int64) string {
	parts := make([]string, len(ids))
	for i, id := range ids {
		parts[i] = fmt.Sprint(id)
	}
	return strings.Join(parts, ", ")
}

// idSet is a set of row ids with random access.
type idSet struct {
	ids   []int64
	index map[int64]int
}

func newIDSet() *idSet          { return &idSet{index: map[int64]int{}} }
func (s *idSet) len() int       { return len(s.ids) }
func (s *idSet) at(i int) int64 { return s.ids[i] }

func (s *idSet) add(id int64) {
	if _, ok := s.index[id]; !ok {
		s.index[id] = len(s.ids)
		s.ids = append(s.ids, id)
	}
}

func (s *idSet) remove(id int64) {
	i, ok := s.index[id]
	if !ok {
		return
	}
	last := s.ids[len(s.ids)-1]
	s.ids[i], s.index[last] = last, i
	s.ids = s.ids[:len(s.ids)-1]
	delete(s.index, id)
}
