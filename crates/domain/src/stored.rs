//! The columns a record is stored in, declared once on its answer and its create body
//! (`#[derive(Stored)]`, `#[field(column)]`): the select list, the insert values and an
//! update's changes all come from that declaration. Values are handed over as
//! [`ColumnValue`]s, which the persistence layer binds; the domain itself never touches SQL.

/// A value to write into a column, typed even when null (PostgreSQL refuses a text
/// null bound into an integer column).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ColumnValue {
    /// An integer column.
    Int(Option<i64>),
    /// A text column.
    Text(Option<String>),
    /// A boolean column.
    Bool(Option<bool>),
}

/// A field type a column stores.
pub trait ToColumn {
    /// The value to write.
    fn to_column(&self) -> ColumnValue;
    /// The column's null, for an `Option` of this type that is `None`.
    fn null() -> ColumnValue;
}

impl ToColumn for i64 {
    fn to_column(&self) -> ColumnValue {
        ColumnValue::Int(Some(*self))
    }
    fn null() -> ColumnValue {
        ColumnValue::Int(None)
    }
}

impl ToColumn for String {
    fn to_column(&self) -> ColumnValue {
        ColumnValue::Text(Some(self.clone()))
    }
    fn null() -> ColumnValue {
        ColumnValue::Text(None)
    }
}

impl ToColumn for bool {
    fn to_column(&self) -> ColumnValue {
        ColumnValue::Bool(Some(*self))
    }
    fn null() -> ColumnValue {
        ColumnValue::Bool(None)
    }
}

impl<T: ToColumn> ToColumn for Option<T> {
    fn to_column(&self) -> ColumnValue {
        match self {
            Some(value) => value.to_column(),
            None => T::null(),
        }
    }
    fn null() -> ColumnValue {
        T::null()
    }
}

/// A flag stored as 0 or 1 in an integer column (`#[field(column, integer)]`): the
/// schema's flags are integers on both backends (call outcomes' alone are PostgreSQL
/// booleans, written by [`ToColumn`]), and PostgreSQL refuses a boolean bound there.
///
/// ```
/// use switchboard_domain::declare::{Body, ColumnValue, Columns};
/// use switchboard_domain::validation::Bool;
///
/// #[derive(Clone, Debug, Body)]
/// struct Flag {
///     #[field(rule = Bool, default = false, column, integer)]
///     on: bool,
/// }
/// assert_eq!(Flag { on: true }.columns(), [("on", ColumnValue::Int(Some(1)))]);
/// ```
///
/// A column holds its value one way: `integer` with `json` does not compile.
///
/// ```compile_fail
/// use switchboard_domain::declare::Body;
/// use switchboard_domain::validation::Bool;
///
/// #[derive(Clone, Debug, Body)]
/// struct Flag {
///     #[field(rule = Bool, default = false, column, integer, json)]
///     on: bool,
/// }
/// ```
pub trait ToIntegerColumn {
    /// The value to write.
    fn to_integer_column(&self) -> ColumnValue;
}

impl ToIntegerColumn for bool {
    fn to_integer_column(&self) -> ColumnValue {
        ColumnValue::Int(Some(i64::from(*self)))
    }
}

impl ToIntegerColumn for Option<bool> {
    fn to_integer_column(&self) -> ColumnValue {
        ColumnValue::Int(self.map(i64::from))
    }
}

/// A value stored as its JSON text in a text column (`#[field(column, json)]`, weekly
/// hours; the derive takes it only on a field the create always has): compact, as serde
/// writes it. A value serde cannot write (no declared field's type is one) would store
/// `NULL`, an error where the column is `NOT NULL`, as weekly hours' is.
///
/// ```
/// use switchboard_domain::declare::{Body, ColumnValue, Columns};
/// use switchboard_domain::validation::text;
///
/// #[derive(Clone, Debug, Body)]
/// struct Tags {
///     #[field(rule = text(0, 100), column, json)]
///     tags: String,
/// }
/// let tags = Tags { tags: "a\"b".into() };
/// assert_eq!(tags.columns(), [("tags", ColumnValue::Text(Some(r#""a\"b""#.into())))]);
/// ```
///
/// On a create's field that may be absent it does not compile (an absent value would be
/// stored as the text `null`, not as `NULL`):
///
/// ```compile_fail
/// use switchboard_domain::declare::Body;
/// use switchboard_domain::validation::text;
///
/// #[derive(Clone, Debug, Body)]
/// struct Tags {
///     #[field(rule = text(0, 100), column, json)]
///     tags: Option<String>,
/// }
/// ```
pub fn json_column<T: serde::Serialize + ?Sized>(value: &T) -> ColumnValue {
    ColumnValue::Text(serde_json::to_string(value).ok())
}

/// A body whose fields marked `#[field(column)]` are written into columns of the same
/// name (or the one the attribute names): a create body answers every one of them, an
/// update body (generated from the create's) the ones it was sent.
pub trait Columns {
    /// The columns to write, with their values.
    fn columns(&self) -> Vec<(&'static str, ColumnValue)>;
}

/// A record read straight from its table's row (`#[derive(Stored)]`): its fields are
/// the columns, except those filled from elsewhere (`#[stored(skip)]`, which the row's
/// `FromRow` derive leaves at their `Default` too) and those a join of the repository
/// selects (`#[stored(joined)]`, read from the row by their name).
pub trait Stored {
    /// The table.
    const TABLE: &'static str;
    /// The table's alias in the select, which list sorts and searches name too.
    const ALIAS: &'static str;
    /// The columns read, in field order (each also the field the row is read into).
    const COLUMNS: &'static [&'static str];
}

/// The rule of an [`OptionalRef`] field: an id, or `0` for none.
pub const ID_OR_NONE: crate::validation::Int = crate::validation::int(0, i64::MAX);

/// A reference that may name nothing: sent and answered as its id or `0` for none, stored
/// as the id or `NULL` (read back, a `NULL` names nothing, and so would a stray 0 or a
/// negative number, which the columns' foreign keys keep out). The one spelling of "0
/// means none" for a body's reference and an answer's.
///
/// ```
/// use switchboard_domain::declare::{Body, ColumnValue, Columns, ID_OR_NONE, OptionalRef};
/// use switchboard_domain::ids::MediaFileId;
///
/// #[derive(Clone, Debug, Body)]
/// struct Greeting {
///     #[field(rule = ID_OR_NONE, default = OptionalRef(None), column)]
///     media_file_id: OptionalRef<MediaFileId>,
/// }
/// let none = Greeting { media_file_id: OptionalRef::from(0) };
/// assert_eq!(none.columns(), [("media_file_id", ColumnValue::Int(None))]);
/// ```
///
/// A field whose create reads 0 as none (`zero_none`) cannot also take `null` to clear
/// in its update (`null_clears`): 0 and `null` would mean two things. It does not compile
/// (an `OptionalRef` is the field for that), where either alone does:
///
/// ```compile_fail
/// use switchboard_domain::declare::Body;
/// use switchboard_domain::ids::BranchId;
/// use switchboard_domain::validation::ID;
///
/// #[derive(Clone, Debug, Body)]
/// struct Placed {
///     #[field(rule = ID, zero_none, null_clears)]
///     branch_id: Option<BranchId>,
/// }
/// ```
///
/// ```
/// use switchboard_domain::declare::Body;
/// use switchboard_domain::ids::BranchId;
/// use switchboard_domain::validation::ID;
///
/// #[derive(Clone, Debug, Body)]
/// struct Placed {
///     #[field(rule = ID, null_clears)]
///     branch_id: Option<BranchId>,
/// }
/// #[derive(Clone, Debug, Body)]
/// struct Zeroed {
///     #[field(rule = ID, zero_none)]
///     branch_id: Option<BranchId>,
/// }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct OptionalRef<T>(pub Option<T>);

impl<T: Copy> OptionalRef<T> {
    /// The record named, if any.
    pub fn get(self) -> Option<T> {
        self.0
    }
}

impl<T: From<i64>> From<i64> for OptionalRef<T> {
    /// `0` (and anything below it, which the rules refuse before) names nothing.
    fn from(id: i64) -> Self {
        Self((id > 0).then(|| T::from(id)))
    }
}

impl<T: Copy + Into<i64>> OptionalRef<T> {
    /// The id as the spec answers it: the record's, or `0` for none.
    pub fn or_zero(self) -> i64 {
        self.0.map_or(0, Into::into)
    }
}

impl<T: Copy + Into<i64>> serde::Serialize for OptionalRef<T> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_i64(self.or_zero())
    }
}

// Its schema: an integer from 0, the record's id or 0 for none. utoipa reads a generic
// type's schema through `ComposeSchema` (given its type arguments' schemas, which this
// one does not depend on) and derives `PartialSchema` from it. `ComposeSchema` is in
// utoipa's hidden `__dev` module, outside its semver promise: a utoipa update is checked by
// the OpenAPI snapshot test (`openapi::`), which fails on any change of the document. An
// answer's field refers
// to it by name, one component per id type (`OptionalRef_BranchId`: what it names);
// inlined, utoipa would wrap it with the field's description in an `allOf` no integer
// satisfies.
impl<T> utoipa::__dev::ComposeSchema for OptionalRef<T> {
    fn compose(
        _: Vec<utoipa::openapi::RefOr<utoipa::openapi::schema::Schema>>,
    ) -> utoipa::openapi::RefOr<utoipa::openapi::schema::Schema> {
        utoipa::openapi::schema::ObjectBuilder::new()
            .schema_type(utoipa::openapi::schema::Type::Integer)
            .format(Some(utoipa::openapi::SchemaFormat::KnownFormat(
                utoipa::openapi::KnownFormat::Int64,
            )))
            .minimum(Some(0.0))
            .description(Some("A record's id, or 0 for none."))
            .into()
    }
}

impl<T> utoipa::ToSchema for OptionalRef<T> {}

/// Read from an integer column, as `i64` is.
#[cfg(feature = "sqlx")]
impl<DB: sqlx::Database, T> sqlx::Type<DB> for OptionalRef<T>
where
    i64: sqlx::Type<DB>,
{
    fn type_info() -> DB::TypeInfo {
        <i64 as sqlx::Type<DB>>::type_info()
    }

    fn compatible(ty: &DB::TypeInfo) -> bool {
        <i64 as sqlx::Type<DB>>::compatible(ty)
    }
}

/// `NULL`, and any id below 1, names nothing.
#[cfg(feature = "sqlx")]
impl<'r, DB: sqlx::Database, T: From<i64>> sqlx::Decode<'r, DB> for OptionalRef<T>
where
    Option<i64>: sqlx::Decode<'r, DB>,
{
    fn decode(value: DB::ValueRef<'r>) -> Result<Self, sqlx::error::BoxDynError> {
        let id = <Option<i64> as sqlx::Decode<'r, DB>>::decode(value)?;
        Ok(id.map_or(Self(None), Self::from))
    }
}

impl<T: Copy + Into<i64>> ToColumn for OptionalRef<T> {
    fn to_column(&self) -> ColumnValue {
        ColumnValue::Int(self.0.map(Into::into))
    }
    fn null() -> ColumnValue {
        ColumnValue::Int(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::MediaFileId;

    #[test]
    fn zero_names_nothing_and_is_stored_as_null() {
        let none = OptionalRef::<MediaFileId>::from(0);
        assert_eq!(none.get(), None);
        assert_eq!(none.to_column(), ColumnValue::Int(None));
        let some = OptionalRef::<MediaFileId>::from(7);
        assert_eq!(some.get(), Some(MediaFileId(7)));
        assert_eq!(some.to_column(), ColumnValue::Int(Some(7)));
    }

    #[test]
    fn an_answer_names_nothing_as_zero() {
        let none = OptionalRef::<MediaFileId>(None);
        assert_eq!(serde_json::to_string(&none).expect("an id writes"), "0");
        assert_eq!(none.or_zero(), 0);
        let some = OptionalRef(Some(MediaFileId(7)));
        assert_eq!(serde_json::to_string(&some).expect("an id writes"), "7");
        assert_eq!(some.or_zero(), 7);
    }

    #[test]
    fn an_absent_option_is_its_columns_typed_null() {
        assert_eq!(None::<String>.to_column(), ColumnValue::Text(None));
        assert_eq!(Some(3i64).to_column(), ColumnValue::Int(Some(3)));
        assert_eq!(None::<Option<i64>>.to_column(), ColumnValue::Int(None));
    }
}
