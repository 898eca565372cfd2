//! The documented path templates, looked up once per request before routing: a request
//! may add or drop the trailing slash of any documented path (interface §5:
//! `/v2/admin/tenants` reaches `/v2/admin/tenants/`, and
//! `/v2/admin/business-hours/1/holidays/` reaches `…/holidays`), and the template it
//! matched names the request in the access log and the metrics (never its raw path: ids
//! would make a key per record) before the router has run.
//!
//! The lookup is a radix tree ([`matchit`], the one axum's router uses), so it costs the
//! same whatever the number of documented paths.

use std::sync::Arc;

use axum::extract::Request;
use axum::http::Uri;

/// The template a request's path matched (`/v2/admin/extensions/{id}`), kept in its
/// extensions for the log and the metrics.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RouteTemplate(pub Arc<str>);

impl RouteTemplate {
    /// The template as written in the document.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// The templates by spelling: `[without, with]` a trailing slash, each keyed by the
/// template without it.
pub struct PathTemplates {
    spelled: [matchit::Router<RouteTemplate>; 2],
    /// Paths served but not in the document (the interactive docs): named, never respelled.
    others: matchit::Router<RouteTemplate>,
}

impl PathTemplates {
    /// The index of `documented` paths (respelled when asked with the other slash) and of
    /// `others` (served as they are).
    pub fn new<'a>(
        documented: impl Iterator<Item = &'a String>,
        others: &[&'static str],
    ) -> PathTemplates {
        let mut spelled = [matchit::Router::new(), matchit::Router::new()];
        for path in documented {
            let with_slash = path.len() > 1 && path.ends_with('/');
            let bare = path.trim_end_matches('/');
            if bare.is_empty() {
                continue;
            }
            // The router accepted these very templates, so they do not conflict here; a
            // path documented with both spellings keeps the first.
            let _ = spelled[usize::from(with_slash)]
                .insert(bare, RouteTemplate(Arc::from(path.as_str())));
        }
        let mut other_routes = matchit::Router::new();
        for path in others {
            let _ = other_routes.insert(*path, RouteTemplate(Arc::from(*path)));
        }
        PathTemplates {
            spelled,
            others: other_routes,
        }
    }

    /// The template `path` reaches and, when it reaches it only with the other trailing
    /// slash, that spelling of `path`.
    fn find(&self, path: &str) -> Option<(RouteTemplate, Option<String>)> {
        // One trailing slash may be added or dropped, not several.
        if path.ends_with("//") {
            return None;
        }
        let trailing = path.len() > 1 && path.ends_with('/');
        let bare = path.trim_end_matches('/');
        if let Ok(found) = self.spelled[usize::from(trailing)].at(bare) {
            return Some((found.value.clone(), None));
        }
        if let Ok(found) = self.spelled[usize::from(!trailing)].at(bare) {
            let respelled = if trailing {
                bare.to_owned()
            } else {
                format!("{bare}/")
            };
            return Some((found.value.clone(), Some(respelled)));
        }
        let found = self.others.at(path).ok()?;
        Some((found.value.clone(), None))
    }

    /// `request` with the spelling of its path a route has, and the template it matched
    /// in its extensions (none for a path no route serves).
    pub fn resolve(&self, mut request: Request) -> Request {
        let Some((template, respelled)) = self.find(request.uri().path()) else {
            return request;
        };
        if let Some(path) = respelled {
            let rewritten = match request.uri().query() {
                Some(query) => format!("{path}?{query}"),
                None => path,
            };
            if let Ok(uri) = rewritten.parse::<Uri>() {
                *request.uri_mut() = uri;
            }
        }
        request.extensions_mut().insert(template);
        request
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn templates() -> PathTemplates {
        let documented = [
            "/v2/admin/tenants/".to_owned(),
            "/v2/admin/tenants/{id}".to_owned(),
            "/v2/admin/business-hours/{id}/holidays".to_owned(),
            "/devices/search".to_owned(),
            "/healthz".to_owned(),
        ];
        PathTemplates::new(documented.iter(), &["/docs/{*rest}"])
    }

    fn path_and_template(path: &str) -> (String, Option<String>) {
        let request = Request::get(path)
            .body(axum::body::Body::empty())
            .expect("a request");
        let request = templates().resolve(request);
        let template = request
            .extensions()
            .get::<RouteTemplate>()
            .map(|t| t.as_str().to_owned());
        (request.uri().to_string(), template)
    }

    #[test]
    fn either_spelling_reaches_the_documented_one() {
        let cases = [
            (
                "/v2/admin/tenants",
                "/v2/admin/tenants/",
                "/v2/admin/tenants/",
            ),
            (
                "/v2/admin/tenants/",
                "/v2/admin/tenants/",
                "/v2/admin/tenants/",
            ),
            (
                "/v2/admin/tenants/7/",
                "/v2/admin/tenants/7",
                "/v2/admin/tenants/{id}",
            ),
            (
                "/v2/admin/business-hours/3/holidays/?page=2",
                "/v2/admin/business-hours/3/holidays?page=2",
                "/v2/admin/business-hours/{id}/holidays",
            ),
            ("/devices/search", "/devices/search", "/devices/search"),
        ];
        for (asked, reached, template) in cases {
            assert_eq!(
                path_and_template(asked),
                (reached.to_owned(), Some(template.to_owned())),
                "{asked}"
            );
        }
    }

    #[test]
    fn other_paths_are_named_or_left_alone() {
        assert_eq!(
            path_and_template("/docs/index.html"),
            (
                "/docs/index.html".to_owned(),
                Some("/docs/{*rest}".to_owned())
            )
        );
        assert_eq!(
            path_and_template("/v2/admin/nothing/"),
            ("/v2/admin/nothing/".to_owned(), None)
        );
        assert_eq!(
            path_and_template("/v2/admin/tenants/7/holidays"),
            ("/v2/admin/tenants/7/holidays".to_owned(), None)
        );
        assert_eq!(
            path_and_template("/v2/admin/tenants//"),
            ("/v2/admin/tenants//".to_owned(), None)
        );
    }

    #[test]
    fn every_documented_path_is_its_own_template() {
        let document = crate::openapi();
        let templates = PathTemplates::new(document.paths.paths.keys(), &[]);
        for template in document.paths.paths.keys() {
            // Each `{parameter}` given a value.
            let path = template
                .split('/')
                .map(|segment| {
                    if segment.starts_with('{') {
                        "1"
                    } else {
                        segment
                    }
                })
                .collect::<Vec<_>>()
                .join("/");
            let request = templates.resolve(
                Request::get(path.as_str())
                    .body(axum::body::Body::empty())
                    .expect("a request"),
            );
            assert_eq!(request.uri().path(), path, "{template}");
            assert_eq!(
                request
                    .extensions()
                    .get::<RouteTemplate>()
                    .map(RouteTemplate::as_str),
                Some(template.as_str()),
                "{path}"
            );
        }
    }
}
