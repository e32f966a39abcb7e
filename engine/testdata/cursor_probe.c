/*
 * cursor_probe: runs statements through MariaDB Connector/C's prepared
 * statement API with a server-side read-only cursor, the way a client
 * with cursor fetch does: COM_STMT_EXECUTE with CURSOR_TYPE_READ_ONLY,
 * then COM_STMT_FETCH for PREFETCH rows at a time.
 *
 * usage: cursor_probe PORT DB PREFETCH STATEMENT...
 *
 * For each statement it prints one line:
 *   cursor=C rows=N last=V conn=ID
 * or, for a statement without a result set,
 *   cursor=0 affected=N conn=ID
 * or, when the statement fails,
 *   cursor=C rows=N error=CODE MESSAGE conn=ID
 * where C is 1 when the server opened a cursor (SERVER_STATUS_CURSOR_EXISTS
 * after the execute), N the rows fetched, V the first column of the last
 * row, and ID the CONNECTION_ID() a plain query on the same connection
 * returns afterwards ("lost" when that query fails). A statement written
 * "@K:STATEMENT" stops after K rows and closes the statement with rows
 * still unfetched; its line ends the rows part with " closed".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mysql.h>

#define MAXCOLS 16
#define CELL 256

static void conn_id(MYSQL *m) {
	MYSQL_RES *r;
	MYSQL_ROW row;
	if (mysql_query(m, "SELECT CONNECTION_ID()") != 0 || (r = mysql_store_result(m)) == NULL) {
		printf(" conn=lost(%u %s)\n", mysql_errno(m), mysql_error(m));
		return;
	}
	row = mysql_fetch_row(r);
	printf(" conn=%s\n", row && row[0] ? row[0] : "?");
	mysql_free_result(r);
}

static void run(MYSQL *m, unsigned long prefetch, const char *q) {
	long stop = -1;
	MYSQL_STMT *st = mysql_stmt_init(m);
	unsigned long cursor = CURSOR_TYPE_READ_ONLY;
	MYSQL_BIND b[MAXCOLS];
	char cells[MAXCOLS][CELL], last[CELL] = "";
	unsigned long lens[MAXCOLS];
	my_bool nulls[MAXCOLS];
	unsigned int ncols, i;
	long rows = 0;
	int opened = 0, rc = 0;

	if (q[0] == '@') {
		char *end;
		stop = strtol(q + 1, &end, 10);
		q = end + 1;
	}
	mysql_stmt_attr_set(st, STMT_ATTR_CURSOR_TYPE, &cursor);
	mysql_stmt_attr_set(st, STMT_ATTR_PREFETCH_ROWS, &prefetch);
	if (mysql_stmt_prepare(st, q, strlen(q)) != 0 || mysql_stmt_execute(st) != 0) {
		printf("cursor=0 rows=0 error=%u %s", mysql_stmt_errno(st), mysql_stmt_error(st));
		mysql_stmt_close(st);
		conn_id(m);
		return;
	}
	opened = (m->server_status & SERVER_STATUS_CURSOR_EXISTS) != 0;
	ncols = mysql_stmt_field_count(st);
	if (ncols == 0) {
		printf("cursor=%d affected=%llu", opened, (unsigned long long)mysql_stmt_affected_rows(st));
		mysql_stmt_close(st);
		conn_id(m);
		return;
	}
	if (ncols > MAXCOLS)
		ncols = MAXCOLS;
	memset(b, 0, sizeof b);
	for (i = 0; i < ncols; i++) {
		b[i].buffer_type = MYSQL_TYPE_STRING;
		b[i].buffer = cells[i];
		b[i].buffer_length = CELL - 1;
		b[i].length = &lens[i];
		b[i].is_null = &nulls[i];
	}
	if (ncols > 0)
		mysql_stmt_bind_result(st, b);
	while (rows != stop && ((rc = mysql_stmt_fetch(st)) == 0 || rc == MYSQL_DATA_TRUNCATED)) {
		rows++;
		if (ncols > 0) {
			if (nulls[0])
				strcpy(last, "NULL");
			else
				snprintf(last, sizeof last, "%.*s", (int)lens[0], cells[0]);
		}
	}
	if (rows == stop)
		printf("cursor=%d rows=%ld closed", opened, rows);
	else if (rc == 1)
		printf("cursor=%d rows=%ld error=%u %s", opened, rows, mysql_stmt_errno(st), mysql_stmt_error(st));
	else
		printf("cursor=%d rows=%ld last=%s", opened, rows, last);
	mysql_stmt_close(st);
	conn_id(m);
}

int main(int argc, char **argv) {
	MYSQL *m;
	unsigned int timeout = 60;
	int i;
	if (argc < 5) {
		fprintf(stderr, "usage: cursor_probe PORT DB PREFETCH STATEMENT...\n");
		return 2;
	}
	m = mysql_init(NULL);
	mysql_options(m, MYSQL_OPT_READ_TIMEOUT, &timeout);
	if (!mysql_real_connect(m, "127.0.0.1", "root", "", argv[2], (unsigned)atoi(argv[1]), NULL, 0)) {
		fprintf(stderr, "connect: %s\n", mysql_error(m));
		return 1;
	}
	for (i = 4; i < argc; i++)
		run(m, strtoul(argv[3], NULL, 10), argv[i]);
	mysql_close(m);
	return 0;
}
