package engine_test

import (
	"context"
	"fmt"
	"log"
	"os"

	"github.com/lakesql/lakesql/engine"
)

// A Go program embeds lakesql: open an engine on a warehouse folder and run
// SQL without a socket.
func Example() {
	dir, err := os.MkdirTemp("", "lake")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)

	ctx := context.Background()
	e, err := engine.Open(ctx, engine.Config{Warehouse: dir, CreateDefaultWorkspace: true, NoAudit: true})
	if err != nil {
		log.Fatal(err)
	}
	defer e.Close()

	conn := e.Connect("root") // the user is the author of the commits
	defer conn.Close()
	results, err := conn.Query(ctx, `
		CREATE DATABASE sales;
		CREATE TABLE sales.orders (id BIGINT, amount DECIMAL(10,2));
		INSERT INTO sales.orders VALUES (1, 9.50), (2, 0.25);
		SELECT COUNT(*), SUM(amount) FROM sales.orders`)
	if err != nil {
		log.Fatal(err)
	}
	last := results[len(results)-1]
	count, _ := last.Text(0, 0)
	sum, _ := last.Text(0, 1)
	fmt.Println(count, sum)
	// Output: 2 9.75
}
