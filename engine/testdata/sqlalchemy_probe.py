"""Reflect a lakesql table with SQLAlchemy and read it with PyMySQL.

Usage: sqlalchemy_probe.py PORT DATABASE TABLE
Prints: the reflected columns (name:type) on one line, then each row.
"""
import sys

import pymysql
import sqlalchemy as sa

port, db, table = int(sys.argv[1]), sys.argv[2], sys.argv[3]

conn = pymysql.connect(host="127.0.0.1", port=port, user="root", database=db)
with conn.cursor() as cur:
    cur.execute("SELECT @@version_comment")
    print("comment:", cur.fetchone()[0])
conn.close()

engine = sa.create_engine(f"mysql+pymysql://root@127.0.0.1:{port}/{db}")
meta = sa.MetaData()
t = sa.Table(table, meta, autoload_with=engine)
print("columns:", ",".join(f"{c.name}:{type(c.type).__name__}" for c in t.columns))
with engine.connect() as c:
    for row in c.execute(sa.select(t).order_by(t.c[t.columns.keys()[0]])):
        print("row:", "|".join("NULL" if v is None else str(v) for v in row))
