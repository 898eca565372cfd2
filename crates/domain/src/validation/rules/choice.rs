//! Closed sets: a field whose values are fixed by the platform (a queue's strategy, a
//! campaign's status) is a Rust enum declared with [`closed_set!`], so a wrong value cannot
//! be represented past the reader. The enum reads and answers as today's text, is stored
//! as that text, and the rule [`Among`] reads it (the whole set, or a part of it) with the
//! message and the document's `enum` a list of strings always had.

use std::fmt;

use serde_json::{Value, json};
use utoipa::openapi::schema::{ObjectBuilder, Schema, Type};

use super::as_str;
use crate::validation::{Raw, Rule};

/// A Rust enum standing for a closed set of strings (declared by [`closed_set!`]).
pub trait ClosedSet: Copy + Eq + fmt::Debug + 'static {
    /// The set's name in messages about an unknown stored value (`QueueStrategy`).
    const NAME: &'static str;
    /// Every value, in the order the document lists them.
    const ALL: &'static [Self];
    /// The value's text, as read, stored and answered.
    fn text(self) -> &'static str;
    /// The value whose text is `s`, if any.
    fn from_text(s: &str) -> Option<Self> {
        Self::ALL.iter().copied().find(|v| v.text() == s)
    }
}

/// A stored or sent text that names no value of a closed set.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownValue {
    /// The set's name.
    pub set: &'static str,
    /// The text found.
    pub value: String,
}

impl fmt::Display for UnknownValue {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} is not a {}", self.value, self.set)
    }
}

impl std::error::Error for UnknownValue {}

/// Reads a value of the closed set `T` among `self.0` (the whole set, [`among`], or the
/// part a field accepts): "must be one of: a, b" names the accepted texts, in order.
#[derive(Clone, Copy, Debug)]
pub struct Among<T: 'static>(pub &'static [T]);

/// The rule reading any value of the closed set `T`.
pub const fn among<T: ClosedSet>() -> Among<T> {
    Among(T::ALL)
}

impl<T: ClosedSet> Among<T> {
    /// The accepted texts, in order.
    pub fn texts(&self) -> impl Iterator<Item = &'static str> + '_ {
        self.0.iter().map(|v| v.text())
    }
}

impl<T: ClosedSet> Rule for Among<T> {
    type Output = T;
    fn check(&self, raw: Raw<'_>) -> Result<T, String> {
        let s = as_str(raw)?;
        match self.0.iter().copied().find(|v| v.text() == s) {
            Some(value) => Ok(value),
            None => Err(format!(
                "must be one of: {}",
                self.texts().collect::<Vec<_>>().join(", ")
            )),
        }
    }
    fn schema(&self) -> Schema {
        ObjectBuilder::new()
            .schema_type(Type::String)
            .enum_values(Some(self.texts()))
            .into()
    }
    fn example(&self) -> Value {
        json!(self.texts().next().unwrap_or_default())
    }
}

/// Declares a closed set as a Rust enum: `closed_set! { /// doc  pub enum QueueStrategy {
/// /// doc  RingAll = "ringAll", … } }`. The enum gets [`ClosedSet`], an inherent `as_str`,
/// `Display`, `FromStr`, serde as its text, a text column (`ToColumn`), a `string` schema for answers (whose fields
/// say `#[schema(value_type = String)]`, so the document stays as it was), and, with the
/// `sqlx` feature, sqlx's `Type`, `Encode` and `Decode` as text.
#[macro_export]
macro_rules! closed_set {
    ($(#[$meta:meta])* $vis:vis enum $name:ident {
        $($(#[$vmeta:meta])* $variant:ident = $text:literal),+ $(,)?
    }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        $vis enum $name {
            $($(#[$vmeta])* $variant),+
        }

        impl $name {
            /// Every value, in the order the document lists them.
            pub const ALL: &'static [$name] = &[$($name::$variant),+];

            /// The value's text, as read, stored and answered.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $($name::$variant => $text),+
                }
            }
        }

        impl $crate::validation::ClosedSet for $name {
            const NAME: &'static str = stringify!($name);
            const ALL: &'static [$name] = $name::ALL;
            fn text(self) -> &'static str {
                self.as_str()
            }
        }

        impl ::std::fmt::Display for $name {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl $crate::stored::ToColumn for $name {
            fn to_column(&self) -> $crate::stored::ColumnValue {
                $crate::stored::ColumnValue::Text(::core::option::Option::Some(self.as_str().to_owned()))
            }
            fn null() -> $crate::stored::ColumnValue {
                $crate::stored::ColumnValue::Text(::core::option::Option::None)
            }
        }

        impl ::std::str::FromStr for $name {
            type Err = $crate::validation::UnknownValue;
            fn from_str(s: &str) -> ::std::result::Result<Self, Self::Err> {
                <$name as $crate::validation::ClosedSet>::from_text(s).ok_or_else(|| {
                    $crate::validation::UnknownValue {
                        set: stringify!($name),
                        value: s.to_owned(),
                    }
                })
            }
        }

        impl ::serde::Serialize for $name {
            fn serialize<S: ::serde::Serializer>(
                &self,
                serializer: S,
            ) -> ::std::result::Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for $name {
            fn deserialize<D: ::serde::Deserializer<'de>>(
                deserializer: D,
            ) -> ::std::result::Result<Self, D::Error> {
                let text = <::std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
                text.parse().map_err(::serde::de::Error::custom)
            }
        }

        impl ::utoipa::PartialSchema for $name {
            fn schema() -> ::utoipa::openapi::RefOr<::utoipa::openapi::schema::Schema> {
                ::utoipa::openapi::schema::ObjectBuilder::new()
                    .schema_type(::utoipa::openapi::schema::Type::String)
                    .into()
            }
        }

        impl ::utoipa::ToSchema for $name {}

        #[cfg(feature = "sqlx")]
        impl<DB: ::sqlx::Database> ::sqlx::Type<DB> for $name
        where
            String: ::sqlx::Type<DB>,
        {
            fn type_info() -> DB::TypeInfo {
                <String as ::sqlx::Type<DB>>::type_info()
            }
            fn compatible(ty: &DB::TypeInfo) -> bool {
                <String as ::sqlx::Type<DB>>::compatible(ty)
            }
        }

        #[cfg(feature = "sqlx")]
        impl<'q, DB: ::sqlx::Database> ::sqlx::Encode<'q, DB> for $name
        where
            String: ::sqlx::Encode<'q, DB>,
        {
            fn encode_by_ref(
                &self,
                buf: &mut <DB as ::sqlx::Database>::ArgumentBuffer,
            ) -> ::std::result::Result<::sqlx::encode::IsNull, ::sqlx::error::BoxDynError> {
                <String as ::sqlx::Encode<'q, DB>>::encode(self.as_str().to_owned(), buf)
            }
        }

        #[cfg(feature = "sqlx")]
        impl<'r, DB: ::sqlx::Database> ::sqlx::Decode<'r, DB> for $name
        where
            String: ::sqlx::Decode<'r, DB>,
        {
            fn decode(
                value: <DB as ::sqlx::Database>::ValueRef<'r>,
            ) -> ::std::result::Result<Self, ::sqlx::error::BoxDynError> {
                let text = <String as ::sqlx::Decode<'r, DB>>::decode(value)?;
                Ok(text.parse::<$name>()?)
            }
        }
    };
}
