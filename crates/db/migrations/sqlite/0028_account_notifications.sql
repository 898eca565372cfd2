-- PostgreSQL's 0028 adds triggers notifying other processes of account changes. A SQLite
-- database is one process's file (docs/decisions.md): the session cache is invalidated in
-- process only, and this migration keeps the two folders numbered alike.
SELECT 1;
