package rewrite

import "github.com/dolthub/go-mysql-server/sql"

// SysVarInt reads an integer system variable's value, which GMS holds as
// int64, int or uint64 depending on how it was set; a uint64 is capped
// at 1<<62 so it stays a positive int64. ok is false for anything else
// (unset).
func SysVarInt(v any) (n int64, ok bool) {
	switch x := v.(type) {
	case int64:
		return x, true
	case int:
		return int64(x), true
	case uint64:
		return int64(min(x, 1<<62)), true
	}
	return 0, false
}

// switchOn reads a boolean session variable that turns a rewrite off
// when 0; unset or unreadable, the rewrite is on.
func switchOn(ctx *sql.Context, name string) bool {
	v, err := ctx.GetSessionVariable(ctx, name)
	if err != nil {
		return true
	}
	switch x := v.(type) {
	case int8:
		return x != 0
	case int64:
		return x != 0
	case bool:
		return x
	}
	return true
}
