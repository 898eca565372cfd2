//! Fax documents: a PDF accepted only when it parses as one (with its page count), a
//! TIFF recognised by its magic bytes — what a fax engine can send.

/// A fax document's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaxDocument {
    /// A PDF that parsed, with its pages.
    Pdf {
        /// Pages it holds.
        pages: i64,
    },
    /// A TIFF (the fax engines' own format).
    Tiff,
}

impl FaxDocument {
    /// Its content type.
    pub fn content_type(self) -> &'static str {
        match self {
            FaxDocument::Pdf { .. } => "application/pdf",
            FaxDocument::Tiff => "image/tiff",
        }
    }

    /// The extension its key ends in.
    pub fn extension(self) -> &'static str {
        match self {
            FaxDocument::Pdf { .. } => "pdf",
            FaxDocument::Tiff => "tiff",
        }
    }
}

/// Decides what `bytes` are: a PDF must parse and hold at least one page; a TIFF is
/// known by its byte-order mark and magic number (`II*\0` or `MM\0*`). Anything else is
/// refused, saying why. Parsing is CPU work: call it off the async workers.
pub fn fax_document(bytes: &[u8]) -> Result<FaxDocument, String> {
    if bytes.starts_with(b"II*\0") || bytes.starts_with(b"MM\0*") {
        return Ok(FaxDocument::Tiff);
    }
    if !bytes.starts_with(b"%PDF-") {
        return Err("the document must be a PDF or a TIFF".into());
    }
    let document =
        lopdf::Document::load_mem(bytes).map_err(|e| format!("the PDF does not parse: {e}"))?;
    let pages = i64::try_from(document.get_pages().len()).unwrap_or(i64::MAX);
    if pages == 0 {
        return Err("the PDF has no pages".into());
    }
    Ok(FaxDocument::Pdf { pages })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A one-page PDF written by lopdf itself.
    fn one_page_pdf() -> Vec<u8> {
        use lopdf::{Document, Object, dictionary};
        let mut doc = Document::with_version("1.5");
        let pages_id = doc.new_object_id();
        let page_id = doc.add_object(dictionary! {
            "Type" => "Page",
            "Parent" => pages_id,
            "MediaBox" => vec![0.into(), 0.into(), 595.into(), 842.into()],
        });
        doc.objects.insert(
            pages_id,
            Object::Dictionary(dictionary! {
                "Type" => "Pages",
                "Kids" => vec![page_id.into()],
                "Count" => 1,
            }),
        );
        let catalog_id = doc.add_object(dictionary! {"Type" => "Catalog", "Pages" => pages_id});
        doc.trailer.set("Root", catalog_id);
        let mut out = Vec::new();
        doc.save_to(&mut out).expect("saved");
        out
    }

    #[test]
    fn a_pdf_that_parses_is_counted_and_one_that_does_not_is_refused() {
        let pdf = one_page_pdf();
        assert_eq!(fax_document(&pdf), Ok(FaxDocument::Pdf { pages: 1 }));
        let mut broken = pdf[..pdf.len() / 2].to_vec();
        broken.extend_from_slice(b"garbage");
        assert!(fax_document(&broken).is_err());
        assert!(fax_document(b"%PDF-1.4\nnot really").is_err());
        assert_eq!(fax_document(b"II*\0rest"), Ok(FaxDocument::Tiff));
        assert_eq!(fax_document(b"MM\0*rest"), Ok(FaxDocument::Tiff));
        assert!(fax_document(b"GIF89a").is_err());
    }
}
