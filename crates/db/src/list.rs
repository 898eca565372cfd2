//! The list machinery of interface §6, written once: search, count, sort, page, or stream.

use futures::stream::BoxStream;
use sea_query::{Condition, Expr, ExprTrait, Func, LikeExpr, Order, Query, SelectStatement};
use switchboard_domain::list::{Direction, ListQuery, ListSpec, Page};

use crate::backend::paging::{Keyed, SortKey};
use crate::backend::{Db, Record, Rows};
use crate::error::Result;
use crate::scope::column;

/// Escapes `%`, `_` and the escape character itself, for a literal substring match.
fn like_pattern(search: &str) -> String {
    let mut out = String::with_capacity(search.len() + 2);
    out.push('%');
    for c in search.to_lowercase().chars() {
        if matches!(c, '%' | '_' | '\\') {
            out.push('\\');
        }
        out.push(c);
    }
    out.push('%');
    out
}

/// `column` contains `text`, case-insensitively and literally (no wildcards).
pub fn contains(column_name: &'static str, text: &str) -> Expr {
    Expr::expr(Func::lower(column(column_name)))
        .like(LikeExpr::new(like_pattern(text)).escape('\\'))
}

/// Shortest text a trigram index can find (shorter texts are matched by a scan).
const TRIGRAM: usize = 3;

/// The free-text search of `query` over the columns of `spec`, when there is one: through
/// the list's trigram full-text table where the database keeps one (SQLite), otherwise a
/// case-insensitive substring match of each column (which PostgreSQL serves from its
/// pg_trgm indexes).
pub fn search(db: &Db, spec: &ListSpec, query: &ListQuery) -> Option<Condition> {
    let search = query.search.as_deref()?;
    if let Some(index) = spec.search_index
        && db.keeps_search_tables()
        && search.chars().count() >= TRIGRAM
    {
        // One phrase, quotes doubled: the trigram tokenizer matches it as a substring of
        // any indexed column, folding case.
        let phrase = format!("\"{}\"", search.replace('"', "\"\""));
        let matching = Query::select()
            .column("rowid")
            .from(index.table)
            .and_where(Expr::cust_with_values(
                format!("{} MATCH ?", index.table),
                [phrase],
            ))
            .take();
        return Some(Condition::all().add(column(index.id_column).in_subquery(matching)));
    }
    Some(
        spec.search_columns
            .iter()
            .fold(Condition::any(), |any, name| {
                any.add(contains(name, search))
            }),
    )
}

/// Adds the free-text search and the sort order of `query` to `select`.
fn prepare(
    db: &Db,
    mut select: SelectStatement,
    spec: &ListSpec,
    query: &ListQuery,
) -> SelectStatement {
    if let Some(search) = search(db, spec, query) {
        select.cond_where(search);
    }
    let order = match query.direction {
        Direction::Asc => Order::Asc,
        Direction::Desc => Order::Desc,
    };
    select.order_by_expr(column(query.sort.column), order.clone());
    // Ties broken by id, so pages never overlap or skip.
    let id = spec.sort_fields[0].column;
    if query.sort.column != id {
        select.order_by_expr(column(id), order);
    }
    select
}

/// One page of `select` (a query already confined to the caller's scope and filters).
pub async fn page<T: Record>(
    db: &Db,
    select: SelectStatement,
    spec: &ListSpec,
    query: &ListQuery,
) -> Result<Page<T>> {
    page_of(db, select, spec, query, None).await
}

/// One page of `select`, its total given when the caller knows it without counting the
/// rows (from maintained counters), counted otherwise.
async fn page_of<T: Record>(
    db: &Db,
    select: SelectStatement,
    spec: &ListSpec,
    query: &ListQuery,
    total: Option<i64>,
) -> Result<Page<T>> {
    let (rows, total) = page_rows(db, select, spec, query, total).await?;
    Ok(Page::new(rows.decode()?, total, query))
}

/// [`page_of`]'s rows as read, with the total: all but the decoding, so compiled once
/// rather than once per record type ([`Rows`]).
async fn page_rows(
    db: &Db,
    select: SelectStatement,
    spec: &ListSpec,
    query: &ListQuery,
    total: Option<i64>,
) -> Result<(Rows, i64)> {
    let mut select = prepare(db, select, spec, query);
    let total = match total {
        Some(total) => total,
        None => {
            let mut counted = select.clone();
            counted.clear_order_by();
            let count = Query::select()
                .expr(Expr::cust("COUNT(*)"))
                .from_subquery(counted, "matching")
                .take();
            db.conn().scalar(&count).await?
        }
    };
    // Offsets are bounded by MAX_PAGE × MAX_PER_PAGE, far below u64's range.
    select
        .limit(query.per_page.unsigned_abs())
        .offset(query.offset().unsigned_abs());
    Ok((db.conn().fetch_rows(&select).await?, total))
}

/// Rows read per round of a streamed list. Each round runs on a connection of its own,
/// released before its rows are written to the client, so a client that reads slowly
/// (or not at all) holds no connection.
pub const STREAM_BATCH: u64 = 500;

/// The aliases under which a streamed list selects its sort key and id, to continue after
/// the last row read.
const KEY_ALIAS: &str = "stream_sort_key_";
const ID_ALIAS: &str = "stream_row_id_";

/// Every row of `select`, sorted, as a stream (`paginated=0`): read in rounds of
/// [`STREAM_BATCH`] rows, each continuing after the last row of the one before by the
/// sort key and id (keyset), or by offset when the sort column's type cannot be carried
/// over. A round starts only when the client has taken the rows before it.
pub fn stream<T: Record>(
    db: &Db,
    select: SelectStatement,
    spec: &ListSpec,
    query: &ListQuery,
) -> BoxStream<'static, Result<T>> {
    use futures::StreamExt;
    use futures::future::ready;
    use futures::stream::{iter, once, unfold};
    // Ends after the first round that fails, read or decoded (`rounds` itself ends only
    // after one it could not read), without reading another.
    unfold(Some(rounds(db, select, spec, query)), |rounds| async move {
        let mut rounds = rounds?;
        let round = rounds.next().await?.and_then(Rows::decode::<T>);
        let rest = round.is_ok().then_some(rounds);
        Some((round, rest))
    })
    .flat_map(|round| match round {
        Ok(records) => iter(records.into_iter().map(Ok)).left_stream(),
        Err(error) => once(ready(Err(error))).right_stream(),
    })
    .boxed()
}

/// [`stream`]'s rounds of rows as read: all but the decoding, so compiled once rather
/// than once per record type ([`Rows`]). Ends after a round that fails.
fn rounds(
    db: &Db,
    select: SelectStatement,
    spec: &ListSpec,
    query: &ListQuery,
) -> BoxStream<'static, Result<Rows>> {
    use futures::StreamExt;
    let db = db.clone();
    let mut base = prepare(&db, select, spec, query);
    let sort = query.sort.column;
    let id = spec.sort_fields[0].column;
    base.expr_as(column(sort), KEY_ALIAS)
        .expr_as(column(id), ID_ALIAS);
    let ascending = matches!(query.direction, Direction::Asc);
    async_stream::try_stream! {
        // After (key, id) of the last row read, or the offset reached.
        let mut after: Option<(Option<SortKey>, i64)> = None;
        let mut offset: u64 = 0;
        loop {
            let mut round = base.clone();
            match &after {
                Some((Some(key), last)) => {
                    round.cond_where(following(&db, sort, id, ascending, key, *last));
                }
                Some((None, _)) => {
                    round.offset(offset);
                }
                None => {}
            }
            round.limit(STREAM_BATCH);
            let batch: Keyed = db.fetch_keyed(&round, KEY_ALIAS, ID_ALIAS).await?;
            let read = batch.rows.len() as u64;
            offset += read;
            // Once a round could not carry its key, the rest goes by offset.
            after = match (after, batch.last) {
                (Some((None, _)), Some((_, last))) => Some((None, last)),
                (_, last) => last,
            };
            yield batch.rows;
            if read < STREAM_BATCH {
                break;
            }
        }
    }
    .boxed()
}

/// The rows after the one whose sort key is `key` and id `last`, in the list's order
/// (ties broken by id in the same direction), with `NULL` keys where the backend sorts
/// them: first in ascending order on SQLite, last on PostgreSQL.
fn following(
    db: &Db,
    sort: &'static str,
    id: &'static str,
    ascending: bool,
    key: &SortKey,
    last: i64,
) -> Condition {
    let after = |expr: Expr, value: sea_query::Value| -> Expr {
        if ascending {
            expr.gt(value)
        } else {
            expr.lt(value)
        }
    };
    let id_after = after(column(id), last.into());
    if sort == id {
        return Condition::all().add(id_after);
    }
    // Whether NULL keys come before every value in this direction.
    let nulls_first = db.nulls_sort_first() == ascending;
    match key {
        SortKey::Null => {
            let ties = Condition::all().add(column(sort).is_null()).add(id_after);
            if nulls_first {
                Condition::any().add(ties).add(column(sort).is_not_null())
            } else {
                ties
            }
        }
        SortKey::Value(value) => {
            let mut next = Condition::any()
                .add(after(column(sort), value.clone()))
                .add(
                    Condition::all()
                        .add(column(sort).eq(value.clone()))
                        .add(id_after),
                );
            if !nulls_first {
                next = next.add(column(sort).is_null());
            }
            next
        }
    }
}

/// A list request's answer: one page, or every row streamed.
pub enum Listing<T> {
    /// `paginated=1`.
    Page(Page<T>),
    /// `paginated=0`.
    Stream(BoxStream<'static, Result<T>>),
}

/// Answers `query` over `select`: a page, or the stream of every row.
pub async fn run<T: Record>(
    db: &Db,
    select: SelectStatement,
    spec: &ListSpec,
    query: &ListQuery,
) -> Result<Listing<T>> {
    run_counted(db, select, spec, query, None).await
}

/// Like [`run`], with the page's total given when the caller knows it (see [`page_of`]).
pub async fn run_counted<T: Record>(
    db: &Db,
    select: SelectStatement,
    spec: &ListSpec,
    query: &ListQuery,
    total: Option<i64>,
) -> Result<Listing<T>> {
    if query.paginated {
        page_of(db, select, spec, query, total)
            .await
            .map(Listing::Page)
    } else {
        Ok(Listing::Stream(stream(db, select, spec, query)))
    }
}

/// Rows read per round when records are completed in batches (child lists loaded with one
/// query per batch rather than one per record).
pub const BATCH: usize = 200;

/// Like [`run`], for records completed from their rows by `complete`, which loads what the
/// rows lack (destination lists, members) for a whole batch at once: the page in one
/// call, the streamed list in batches of [`BATCH`].
pub async fn run_completed<R, T, F, Fut>(
    db: &Db,
    select: SelectStatement,
    spec: &ListSpec,
    query: &ListQuery,
    complete: F,
) -> Result<Listing<T>>
where
    R: Record,
    T: Send + 'static,
    F: Fn(Db, Vec<R>) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<Vec<T>>> + Send + 'static,
{
    run_completed_counted(db, select, spec, query, None, complete).await
}

/// Like [`run_completed`], with the page's total given when the caller knows it without
/// counting the rows (see [`page_of`]).
pub async fn run_completed_counted<R, T, F, Fut>(
    db: &Db,
    select: SelectStatement,
    spec: &ListSpec,
    query: &ListQuery,
    total: Option<i64>,
    complete: F,
) -> Result<Listing<T>>
where
    R: Record,
    T: Send + 'static,
    F: Fn(Db, Vec<R>) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = Result<Vec<T>>> + Send + 'static,
{
    use futures::StreamExt;
    if query.paginated {
        let page: Page<R> = page_of(db, select, spec, query, total).await?;
        let records = complete(db.clone(), page.records).await?;
        return Ok(Listing::Page(Page {
            records,
            total_records: page.total_records,
            page: page.page,
            max_page: page.max_page,
        }));
    }
    let db = db.clone();
    let rows = stream::<R>(&db, select, spec, query).chunks(BATCH);
    let complete = std::sync::Arc::new(complete);
    let records = rows
        .then(move |batch| {
            let db = db.clone();
            let complete = complete.clone();
            async move {
                let batch: Result<Vec<R>> = batch.into_iter().collect();
                match batch {
                    Ok(rows) => complete(db, rows).await,
                    Err(e) => Err(e),
                }
            }
        })
        .flat_map(|batch| {
            let items: Vec<Result<T>> = match batch {
                Ok(records) => records.into_iter().map(Ok).collect(),
                Err(e) => vec![Err(e)],
            };
            futures::stream::iter(items)
        })
        .boxed();
    Ok(Listing::Stream(records))
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use futures::StreamExt;
    use switchboard_domain::list::SortField;

    use super::*;

    #[test]
    fn like_wildcards_are_escaped() {
        assert_eq!(like_pattern("A_b%"), "%a\\_b\\%%");
        assert_eq!(like_pattern("x\\y"), "%x\\\\y%");
    }

    /// A record no row decodes into.
    struct Undecodable;

    impl<'r, R: sqlx::Row> sqlx::FromRow<'r, R> for Undecodable {
        fn from_row(_: &'r R) -> std::result::Result<Self, sqlx::Error> {
            Err(sqlx::Error::ColumnNotFound("undecodable".into()))
        }
    }

    const BY_ID: SortField = SortField {
        name: "id",
        column: "id",
    };

    #[tokio::test]
    async fn a_streamed_list_ends_at_its_first_undecodable_round_without_reading_more() {
        let (db, path) = crate::test_database::fresh_sqlite("list").await;
        // Three rounds' worth of rows.
        for n in 0..(2 * STREAM_BATCH + 1) {
            crate::jobs::pledge_object_deletion(&db, &format!("k{n}"), 0)
                .await
                .unwrap();
        }
        let spec = ListSpec {
            sort_fields: &[BY_ID],
            search_columns: &[],
            search_index: None,
        };
        let query = ListQuery {
            paginated: false,
            page: 1,
            per_page: 25,
            sort: BY_ID,
            direction: Direction::Asc,
            search: None,
        };
        let select = Query::select().column("id").from("jobs").take();
        let (items, statements) = crate::statements::counted(
            stream::<Undecodable>(&db, select, &spec, &query).collect::<Vec<_>>(),
        )
        .await;
        assert_eq!(items.len(), 1, "one error, then the end");
        assert!(items[0].is_err());
        assert_eq!(statements, 1, "no round read after the failed one");
        db.close().await;
        let _ = std::fs::remove_file(path);
    }
}
