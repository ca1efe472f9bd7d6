#!/bin/sh
# sqlite-check.sh ROWS during|after - Lab 6's checker of a crash state of
# the database db, table t: PRAGMA integrity_check says ok, and t holds
# ROWS rows once the insert had returned ("after": the commit is
# durable), ROWS - 1 or ROWS while it ran. Exit 1 with one line saying
# why, else 0.
out=$(sqlite3 db 'PRAGMA integrity_check; SELECT count(*) FROM t;' 2>&1 | tr '\n' ' ')
case "$2:$out" in
"after:ok $1 " | "during:ok $1 " | "during:ok $(($1 - 1)) ") exit 0 ;;
esac
echo "db: integrity_check and rows: $out"
exit 1
