//! A table's columns, and rows read as JSON objects of them, for the audit trail's
//! snapshots of the tables the API answers no record of (see `crate::audit`).

use sqlx::AssertSqlSafe;

use super::{Tx, TxInner};
use crate::error::Result;

impl Tx {
    /// The columns of `table` in the table's order, as the database lists them, those
    /// whose names are not plain (letters, digits, `_`) left out: the names are written
    /// into statements (the audit trail's snapshots, synthetic copies). `table` is one of
    /// the code's own table names, never input.
    pub async fn columns(&mut self, table: &'static str) -> Result<Vec<String>> {
        let circuit = self.circuit();
        let result = circuit.guard(true, self.columns_unguarded(table)).await;
        circuit.observe(result)
    }

    /// [`Tx::columns`] for a statement already inside the circuit's guard.
    async fn columns_unguarded(&mut self, table: &'static str) -> Result<Vec<String>> {
        let columns: Vec<String> = match &mut self.inner {
            TxInner::Sqlite(tx) => {
                sqlx::query_scalar("SELECT name FROM pragma_table_info(?1) ORDER BY cid")
                    .bind(table)
                    .fetch_all(&mut **tx)
                    .await?
            }
            TxInner::Postgres(tx) => {
                sqlx::query_scalar(
                    "SELECT column_name::text FROM information_schema.columns \
                     WHERE table_schema = current_schema() AND table_name = $1 \
                     ORDER BY ordinal_position",
                )
                .bind(table)
                .fetch_all(&mut **tx)
                .await?
            }
        };
        Ok(columns
            .into_iter()
            .filter(|c| c.chars().all(|ch| ch.is_ascii_alphanumeric() || ch == '_'))
            .collect())
    }

    /// Row `id` of `table` as a JSON object of its columns, leaving out the columns
    /// `keep` refuses (secrets are never read for the audit trail); `None` when there is
    /// no such row. `table` is one of the code's own table names, never input.
    pub async fn row_json(
        &mut self,
        table: &'static str,
        id: i64,
        keep: fn(&str) -> bool,
    ) -> Result<Option<serde_json::Map<String, serde_json::Value>>> {
        Ok(self.rows_json_by_id(table, &[id], keep).await?.pop())
    }

    /// Rows `ids` of `table` as [`Tx::row_json`] reads one, in one query; rows that do not
    /// exist are left out, the order is the table's.
    async fn rows_json_by_id(
        &mut self,
        table: &'static str,
        ids: &[i64],
        keep: fn(&str) -> bool,
    ) -> Result<Vec<serde_json::Map<String, serde_json::Value>>> {
        let circuit = self.circuit();
        let result = circuit
            .guard(true, async {
                if ids.is_empty() {
                    return Ok(Vec::new());
                }
                let columns = self.columns_unguarded(table).await?;
                let pairs: Vec<String> = columns
                    .iter()
                    .filter(|c| keep(c))
                    .map(|c| format!("'{c}', \"{c}\""))
                    .collect();
                if pairs.is_empty() {
                    return Ok(Vec::new());
                }
                // Integers written into the statement: no input, and no limit on bound values.
                let list = ids
                    .iter()
                    .map(i64::to_string)
                    .collect::<Vec<_>>()
                    .join(", ");
                let texts: Vec<String> = match &mut self.inner {
                    TxInner::Sqlite(tx) => {
                        let sql = format!(
                            "SELECT json_object({}) FROM \"{table}\" WHERE id IN ({list}) ORDER BY id",
                            pairs.join(", ")
                        );
                        sqlx::query_scalar(AssertSqlSafe(sql))
                            .fetch_all(&mut **tx)
                            .await?
                    }
                    TxInner::Postgres(tx) => {
                        // json_build_object takes at most 100 arguments: built in chunks of 50
                        // columns and merged.
                        let objects: Vec<String> = pairs
                            .chunks(50)
                            .map(|chunk| format!("jsonb_build_object({})", chunk.join(", ")))
                            .collect();
                        let sql = format!(
                            "SELECT ({})::text FROM \"{table}\" WHERE id IN ({list}) ORDER BY id",
                            objects.join(" || ")
                        );
                        sqlx::query_scalar(AssertSqlSafe(sql))
                            .fetch_all(&mut **tx)
                            .await?
                    }
                };
                Ok(texts
                    .iter()
                    .filter_map(|text| match serde_json::from_str(text) {
                        Ok(serde_json::Value::Object(map)) => Some(map),
                        _ => None,
                    })
                    .collect())
            })
            .await;
        circuit.observe(result)
    }
}
