package reliability

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math/rand/v2"
	"strconv"
	"time"

	gomysql "github.com/go-sql-driver/mysql"
)

// sideClient is the DDL session or the maintenance session of the
// schedule. Their statements may fail (a lost race, a lease held, a
// killed statement); each is tallied by its answer.
type sideClient struct {
	client
	rng   *rand.Rand
	tally map[string]int
	mv    bool     // the materialized view may exist
	cols  []string // extra columns of the ledger table, oldest first
	ncol  int
	ctas  bool // the CTAS table may exist
	// generic are the messages of 1105 answers; samples one message per
	// kind of failure, for the log.
	generic []string
	samples map[string]string
}

// answer names an error for the tallies: "ok", the MySQL code, or "lost"
// (the connection died).
func answer(err error) string {
	var me *gomysql.MySQLError
	switch {
	case err == nil:
		return "ok"
	case errors.As(err, &me):
		return strconv.Itoa(int(me.Number))
	default:
		return "lost"
	}
}

func (c *sideClient) do(ctx context.Context, op, q string) error {
	err := c.exec(ctx, q)
	c.count(op, err)
	return err
}

// count tallies an answer; a generic 1105 also keeps its message (a typed
// error is expected for every failure the schedule provokes).
func (c *sideClient) count(op string, err error) {
	a := answer(err)
	c.tally[op+" "+a]++
	if a == "1105" {
		c.generic = append(c.generic, op+": "+err.Error())
	}
	if _, seen := c.samples[op+" "+a]; !seen && err != nil {
		c.samples[op+" "+a] = err.Error()
	}
}

// query runs q and returns its rows as strings.
func (c *sideClient) query(ctx context.Context, q string) ([][]string, error) {
	if err := c.ensure(ctx); err != nil {
		return nil, err
	}
	qctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	rows, err := c.sc.c.QueryContext(qctx, q)
	if err == nil {
		defer rows.Close()
		var out [][]string
		cols, _ := rows.Columns()
		for rows.Next() {
			vals := make([]sql.NullString, len(cols))
			ptrs := make([]any, len(cols))
			for i := range vals {
				ptrs[i] = &vals[i]
			}
			if err = rows.Scan(ptrs...); err != nil {
				break
			}
			row := make([]string, len(cols))
			for i, v := range vals {
				row[i] = v.String
			}
			out = append(out, row)
		}
		if err == nil {
			err = rows.Err()
		}
		if err == nil {
			return out, nil
		}
	}
	if qctx.Err() == context.DeadlineExceeded {
		c.env.errorf("%s: %.80s did not answer in 60s", c.name, q)
	}
	if classify(err) == outUnknown {
		c.drop()
	}
	return nil, err
}

// pause sleeps between lo and hi, or until ctx ends.
func pause(ctx context.Context, rng *rand.Rand, lo, hi time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(lo + time.Duration(rng.Int64N(int64(hi-lo)))):
	}
}

// runDDL changes the schedule's tables under the writers: columns of the
// ledger table, the side table wiped (DROP+CREATE or TRUNCATE), a
// materialized view and a CTAS table over the ledger table.
func (c *sideClient) runDDL(ctx context.Context) {
	defer c.drop()
	for time.Now().Before(c.env.deadline) && ctx.Err() == nil {
		pause(ctx, c.rng, 100*time.Millisecond, 500*time.Millisecond)
		c.ddlStep(ctx)
	}
}

// ddlStep runs one random DDL change.
func (c *sideClient) ddlStep(ctx context.Context) {
	switch c.rng.IntN(5) {
	case 0:
		c.alterColumns(ctx)
	case 1:
		c.env.wipes.Add(1)
		c.do(ctx, "drop side", "DROP TABLE side")
		c.recreateSide(ctx)
	case 2:
		c.env.wipes.Add(1)
		c.do(ctx, "truncate side", "TRUNCATE TABLE side")
	case 3:
		c.materializedView(ctx)
	case 4:
		if !c.ctas {
			c.ctas = classify(c.do(ctx, "ctas", "CREATE TABLE IF NOT EXISTS scratch AS SELECT id, v FROM t WHERE grp % 3 = 0")) != outRefused
		} else {
			c.ctas = classify(c.do(ctx, "drop ctas", "DROP TABLE IF EXISTS scratch")) == outRefused
		}
	}
}

// alterColumns adds an extra column to the ledger table, or drops the
// oldest when there are two.
func (c *sideClient) alterColumns(ctx context.Context) {
	if len(c.cols) < 2 {
		c.ncol++
		name := fmt.Sprintf("x%d", c.ncol)
		if classify(c.do(ctx, "add column", fmt.Sprintf("ALTER TABLE t ADD COLUMN %s INT DEFAULT %d", name, c.ncol))) != outRefused {
			c.cols = append(c.cols, name)
		}
		return
	}
	err := c.do(ctx, "drop column", "ALTER TABLE t DROP COLUMN "+c.cols[0])
	var me *gomysql.MySQLError
	// Gone already, or its ADD (outcome unknown) did not land: 1091, as
	// MySQL, whether the binder or the metastore finds it missing.
	if err == nil || errors.As(err, &me) && me.Number == 1091 {
		c.cols = c.cols[1:]
	}
}

// recreateSide creates the side table again after its DROP, retrying
// until it exists.
func (c *sideClient) recreateSide(ctx context.Context) {
	for attempt := 0; attempt < 50 && ctx.Err() == nil; attempt++ {
		if c.do(ctx, "create side", "CREATE TABLE IF NOT EXISTS side (id BIGINT, grp BIGINT)") == nil {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	c.env.errorf("ddl: could not create the side table again")
}

func (c *sideClient) materializedView(ctx context.Context) {
	switch {
	case !c.mv:
		c.mv = classify(c.do(ctx, "create mv",
			"CREATE MATERIALIZED VIEW IF NOT EXISTS mv AS SELECT grp, COUNT(*) AS n, SUM(v) AS sv FROM t GROUP BY grp")) != outRefused
	case c.rng.IntN(2) == 0:
		c.do(ctx, "refresh mv", "REFRESH MATERIALIZED VIEW mv")
	default:
		c.mv = classify(c.do(ctx, "drop mv", "DROP MATERIALIZED VIEW IF EXISTS mv")) == outRefused
	}
}

// runMaintenance runs the maintenance procedures on the schedule's
// tables; CALL verify must find nothing even while writers run.
func (c *sideClient) runMaintenance(ctx context.Context) {
	defer c.drop()
	ops := []struct{ name, q string }{
		{"compact t", "CALL compact('s.t')"},
		{"optimize t", "OPTIMIZE TABLE t"},
		{"expire t", "CALL expire_snapshots('s.t', '1s', 3)"},
		{"orphans t", "CALL remove_orphan_files('s.t', '1h')"},
		{"statistics t", "CALL refresh_statistics('s.t')"},
		{"compact side", "CALL compact('s.side')"},
		{"expire side", "CALL expire_snapshots('s.side', '1s', 2)"},
		{"verify t", "CALL verify('s.t')"},
	}
	for time.Now().Before(c.env.deadline) && ctx.Err() == nil {
		pause(ctx, c.rng, 150*time.Millisecond, 600*time.Millisecond)
		op := ops[c.rng.IntN(len(ops))]
		rows, err := c.query(ctx, op.q)
		c.count(op.name, err)
		for _, r := range rows {
			switch {
			// Strict under concurrent MV DDL too: verify reads the
			// refresh graph as one consistent cut (issue 18).
			case op.name == "verify t" && r[0] != "ok":
				c.env.errorf("maintenance: CALL verify('s.t') during the run: %v", r)
			case op.name == "optimize t" && r[2] != "status":
				c.tally[op.name+" "+r[2]]++
			}
		}
	}
}

// chaos kills statements, connections and server processes while the
// schedule runs: KILL QUERY and KILL CONNECTION of random sessions, and
// each server SIGKILLed and restarted in turn.
type chaos struct {
	env      *schedEnv
	rng      *rand.Rand
	duration time.Duration
	tally    map[string]int
}

func (ch *chaos) run(ctx context.Context) {
	start := time.Now()
	// One server kill per 6 s of schedule, at least one, evenly spread.
	kills := max(1, int(ch.duration/(6*time.Second)))
	next := 0
	for time.Now().Before(ch.env.deadline) && ctx.Err() == nil {
		pause(ctx, ch.rng, 100*time.Millisecond, 400*time.Millisecond)
		if next < kills && time.Since(start) >= ch.duration*time.Duration(next+1)/time.Duration(kills+1) {
			ch.killServer(ctx, next%len(ch.env.cl.procs))
			next++
			continue
		}
		name, server, gen, id, ok := ch.env.victim(ch.rng)
		if !ok {
			continue
		}
		what := "KILL QUERY"
		if ch.rng.IntN(100) < 35 { // the DDL session too: see schedEnv
			what = "KILL CONNECTION"
		}
		res := ch.kill(ctx, server, gen, fmt.Sprintf("%s %d", what, id))
		ch.tally[what+" "+res]++
		if name == "ddl" {
			ch.tally["ddl session: "+what+" "+res]++
		}
	}
	for next < kills && ctx.Err() == nil { // a short run still kills each planned server
		ch.killServer(ctx, next%len(ch.env.cl.procs))
		next++
	}
}

// kill sends q to server (if it is still the generation the victim
// connected to) on a connection of its own.
func (ch *chaos) kill(ctx context.Context, server, gen int, q string) string {
	sc, err := ch.env.cl.dial(ctx, server, "")
	if err != nil {
		return "server down"
	}
	defer sc.close()
	if sc.gen != gen {
		return "server restarted"
	}
	return answer(sc.exec(ctx, q))
}

// killServer SIGKILLs server i, waits a moment and starts it again.
func (ch *chaos) killServer(ctx context.Context, i int) {
	p := ch.env.cl.procs[i]
	p.kill() // possibly mid-DDL: see schedEnv
	ch.tally["SIGKILL server"]++
	pause(ctx, ch.rng, 100*time.Millisecond, 800*time.Millisecond)
	sctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	if err := p.start(sctx); err != nil {
		ch.env.errorf("chaos: restart of server %d after SIGKILL: %v", i, err)
	}
}
