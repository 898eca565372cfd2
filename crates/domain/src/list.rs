//! How a list is asked for (interface §6): paging, sorting by a whitelisted field, free-text
//! search; and the envelope it is answered in.

use std::collections::HashMap;

use serde::Serialize;
use utoipa::ToSchema;

use crate::declare::{DeclaredFilter, Filter};
use crate::ids::{BranchId, TenantId};
use crate::validation::{Among, FLAG, ID, Int, Problems, QueryReader, Text, among, int, text};

/// Default page size.
pub const DEFAULT_PER_PAGE: i64 = 25;
/// Largest page size.
pub const MAX_PER_PAGE: i64 = 1000;
/// Highest page number accepted; keeps the offset arithmetic far from overflow.
pub const MAX_PAGE: i64 = 1_000_000_000;
/// Longest `sortBy` value.
pub const MAX_SORT_LENGTH: usize = 50;
/// Longest `query` value.
pub const MAX_QUERY_LENGTH: usize = 255;
/// What `query` may be: free text of at most [`MAX_QUERY_LENGTH`] characters.
pub const SEARCH: Text = text(0, MAX_QUERY_LENGTH);
/// What `page` may be.
pub const PAGE: Int = int(1, MAX_PAGE);
/// What `recordsPerPage` (and its aliases) may be.
pub const PER_PAGE: Int = int(1, MAX_PER_PAGE);
/// What `sortDirection` may be.
pub const DIRECTION: Among<Direction> = among();

/// A field a list may be sorted by: its API name and the column that holds it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SortField {
    /// The name clients send in `sortBy`.
    pub name: &'static str,
    /// The column (qualified where joins make it ambiguous) that sorts it.
    pub column: &'static str,
}

/// What a resource's list allows: its sort whitelist and the columns `query` searches.
#[derive(Clone, Copy, Debug)]
pub struct ListSpec {
    /// Fields accepted by `sortBy`; the first is the default.
    pub sort_fields: &'static [SortField],
    /// Columns matched, case-insensitively and as substrings, by `query`.
    pub search_columns: &'static [&'static str],
    /// A full-text table indexing those columns by trigrams, where the database needs
    /// one for substring search (SQLite's FTS5; PostgreSQL indexes the columns
    /// themselves with pg_trgm).
    pub search_index: Option<SearchIndex>,
}

/// A trigram full-text table over a list's search columns, keyed by the record's id.
#[derive(Clone, Copy, Debug)]
pub struct SearchIndex {
    /// The FTS5 table.
    pub table: &'static str,
    /// The (qualified) id column its rowid matches.
    pub id_column: &'static str,
}

impl ListSpec {
    /// The sort field named `name`.
    pub fn sort_field(&self, name: &str) -> Option<SortField> {
        self.sort_fields.iter().copied().find(|f| f.name == name)
    }

    /// The names accepted by `sortBy`.
    pub fn sort_names(&self) -> Vec<&'static str> {
        self.sort_fields.iter().map(|f| f.name).collect()
    }
}

/// A record a list answers: its sort whitelist and search (`SPEC`) and its filters,
/// declared on the record with `#[derive(Listed)]`.
pub trait Listed: Send + 'static {
    /// The list's filters.
    type Filter: DeclaredFilter + Send + 'static;
    /// The record's name; the document names the list's enums after it
    /// (`ExtensionSortBy`).
    const NAME: &'static str;
    /// Sorting and search of the list.
    const SPEC: &'static ListSpec;
    /// Further names accepted for `recordsPerPage`.
    const PER_PAGE_ALIASES: &'static [&'static str] = &[];
}

/// The filter of lists that take none beyond the shared list parameters.
#[derive(Clone, Copy, Debug, Default, Filter)]
pub struct NoFilter {}

/// The filter of lists whose only filter is the tenant.
#[derive(Clone, Debug, Default, Filter)]
pub struct TenantFilter {
    /// Only the records of this tenant.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
}

/// The filters of lists of branch-bearing records: the tenant and the branch.
#[derive(Clone, Debug, Default, Filter)]
pub struct BranchedFilter {
    /// The tenant.
    #[field(flatten)]
    pub tenant: TenantFilter,
    /// Only the records of this branch.
    #[field(rule = ID)]
    pub branch_id: Option<BranchId>,
}

crate::closed_set! {
    /// Sort direction.
    pub enum Direction {
        /// Smallest first.
        Asc = "asc",
        /// Largest first.
        Desc = "desc",
    }
}

/// A parsed list request.
#[derive(Clone, Debug)]
pub struct ListQuery {
    /// `false` for `paginated=0`: every record, streamed.
    pub paginated: bool,
    /// Page number, from 1.
    pub page: i64,
    /// Page size.
    pub per_page: i64,
    /// The field to sort by.
    pub sort: SortField,
    /// The sort direction.
    pub direction: Direction,
    /// Free-text search, when given and not blank.
    pub search: Option<String>,
}

impl ListQuery {
    /// Reads the shared list parameters of `spec` from `params`, recording problems into
    /// `problems`. `per_page_aliases` are further names accepted for `recordsPerPage`
    /// (the phone-number list's `resultsPerPage`).
    pub fn read(
        spec: &ListSpec,
        params: &HashMap<String, String>,
        per_page_aliases: &[&str],
        problems: &mut Problems,
    ) -> ListQuery {
        let mut q = QueryReader::new(params, problems);
        let paginated = q.optional("paginated", &FLAG).unwrap_or(1) == 1;
        let page = q.optional("page", &PAGE).unwrap_or(1);
        let mut per_page = q.optional("recordsPerPage", &PER_PAGE);
        for alias in per_page_aliases {
            if let Some(n) = q.optional(alias, &PER_PAGE) {
                per_page.get_or_insert(n);
            }
        }
        let default_sort = spec.sort_fields[0];
        let sort = match q.optional("sortBy", &text(1, MAX_SORT_LENGTH)) {
            Some(name) => spec.sort_field(&name).unwrap_or_else(|| {
                q.problem(
                    "sortBy",
                    format!("must be one of: {}", spec.sort_names().join(", ")),
                );
                default_sort
            }),
            None => default_sort,
        };
        let direction = q
            .optional("sortDirection", &DIRECTION)
            .unwrap_or(Direction::Asc);
        let search = q
            .optional("query", &SEARCH)
            .filter(|s| !s.trim().is_empty());
        ListQuery {
            paginated,
            page,
            per_page: per_page.unwrap_or(DEFAULT_PER_PAGE),
            sort,
            direction,
            search,
        }
    }

    /// Rows to skip for this page.
    pub fn offset(&self) -> i64 {
        (self.page - 1).saturating_mul(self.per_page)
    }
}

/// One page of a list: its records, how many match in all, this page and the last page.
#[derive(Debug, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct Page<T> {
    /// The records of this page.
    pub records: Vec<T>,
    /// How many records match the filter, over all pages.
    pub total_records: i64,
    /// This page's number.
    pub page: i64,
    /// The last page's number: `ceil(totalRecords / recordsPerPage)`, 0 when empty.
    pub max_page: i64,
}

impl<T> Page<T> {
    /// Builds the envelope for `records` of page `query.page` out of `total` matches.
    pub fn new(records: Vec<T>, total: i64, query: &ListQuery) -> Self {
        Page {
            records,
            total_records: total,
            page: query.page,
            max_page: max_page(total, query.per_page),
        }
    }
}

/// `ceil(total / per_page)`, 0 for an empty list.
pub fn max_page(total: i64, per_page: i64) -> i64 {
    if total <= 0 {
        0
    } else {
        (total + per_page - 1) / per_page
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPEC: ListSpec = ListSpec {
        sort_fields: &[
            SortField {
                name: "id",
                column: "id",
            },
            SortField {
                name: "name",
                column: "name",
            },
        ],
        search_columns: &["name"],
        search_index: None,
    };

    fn read(pairs: &[(&str, &str)]) -> (ListQuery, Vec<String>) {
        let params = pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        let mut problems = Problems::new();
        let q = ListQuery::read(&SPEC, &params, &["resultsPerPage"], &mut problems);
        (q, problems.into_messages())
    }

    #[test]
    fn max_page_arithmetic() {
        assert_eq!(max_page(0, 25), 0);
        assert_eq!(max_page(1, 25), 1);
        assert_eq!(max_page(25, 25), 1);
        assert_eq!(max_page(26, 25), 2);
    }

    #[test]
    fn defaults_and_aliases() {
        let (q, problems) = read(&[("resultsPerPage", "7")]);
        assert!(problems.is_empty());
        assert_eq!((q.page, q.per_page, q.paginated), (1, 7, true));
        assert_eq!(q.sort.name, "id");
        assert_eq!(q.direction, Direction::Asc);
    }

    #[test]
    fn every_broken_parameter_is_reported() {
        let (_, problems) = read(&[
            ("paginated", "2"),
            ("page", "0"),
            ("recordsPerPage", "1001"),
            ("sortBy", "password"),
            ("sortDirection", "up"),
        ]);
        assert_eq!(
            problems,
            vec![
                "'query/paginated' must be at most 1",
                "'query/page' must be at least 1",
                "'query/recordsPerPage' must be at most 1000",
                "'query/sortBy' must be one of: id, name",
                "'query/sortDirection' must be one of: asc, desc",
            ]
        );
    }
}
