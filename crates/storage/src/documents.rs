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

/// How much of a hostile PDF parsing may take in: a fax is a few pages, so these are far
/// above any real document and far below what would exhaust the process's memory.
#[derive(Clone, Copy, Debug)]
pub struct PdfLimits {
    /// Bytes one compressed object stream may inflate to.
    pub stream_bytes: usize,
    /// Object streams in the document.
    pub object_streams: u32,
    /// Objects in the document, object streams' contents included.
    pub objects: u32,
}

/// The limits fax uploads are parsed within (at most 64 MiB inflated in all).
pub const PDF_LIMITS: PdfLimits = PdfLimits {
    stream_bytes: 2 << 20,
    object_streams: 32,
    objects: 500_000,
};

/// One PDF parsed at a time in the process: the limits bound one parse, this bounds them all.
static PARSING: std::sync::Mutex<()> = std::sync::Mutex::new(());

thread_local! {
    /// What the current parse on this thread has loaded: object streams, objects, and
    /// whether a limit was passed. lopdf's filter is a plain `fn`, so it counts here.
    static LOADED: std::cell::Cell<(u32, u32, bool)> = const { std::cell::Cell::new((0, 0, false)) };
    /// The limits of the current parse on this thread.
    static LIMITS: std::cell::Cell<PdfLimits> = const { std::cell::Cell::new(PDF_LIMITS) };
}

/// lopdf's load filter: counts what is loaded and, past a limit, keeps nothing more (an
/// object stream past the limit is never inflated), so the parse ends soon and is refused.
fn within_limits(
    id: (u32, u16),
    object: &mut lopdf::Object,
) -> Option<((u32, u16), lopdf::Object)> {
    let limits = LIMITS.with(std::cell::Cell::get);
    let (mut streams, mut objects, mut over) = LOADED.with(std::cell::Cell::get);
    objects = objects.saturating_add(1);
    if let lopdf::Object::Stream(stream) = object
        && stream.dict.has_type(b"ObjStm")
    {
        streams = streams.saturating_add(1);
    }
    over |= streams > limits.object_streams || objects > limits.objects;
    LOADED.with(|loaded| loaded.set((streams, objects, over)));
    // lopdf keeps the object in place for objects of the file itself and the answered copy
    // for those of object streams: the copy is what both paths can use.
    (!over).then(|| (id, object.clone()))
}

/// Decides what `bytes` are: a PDF must parse within [`PDF_LIMITS`] and hold at least one
/// page; a TIFF is known by its byte-order mark and magic number (`II*\0` or `MM\0*`).
/// Anything else is refused, saying why. Parsing is CPU work: call it off the async workers.
pub fn fax_document(bytes: &[u8]) -> Result<FaxDocument, String> {
    fax_document_within(bytes, PDF_LIMITS)
}

/// [`fax_document`] within `limits`.
pub fn fax_document_within(bytes: &[u8], limits: PdfLimits) -> Result<FaxDocument, String> {
    if bytes.starts_with(b"II*\0") || bytes.starts_with(b"MM\0*") {
        return Ok(FaxDocument::Tiff);
    }
    if !bytes.starts_with(b"%PDF-") {
        return Err("the document must be a PDF or a TIFF".into());
    }
    let _one_at_a_time = PARSING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    LIMITS.with(|current| current.set(limits));
    LOADED.with(|loaded| loaded.set((0, 0, false)));
    let options = lopdf::LoadOptions {
        filter: Some(within_limits),
        max_decompressed_size: Some(limits.stream_bytes),
        ..Default::default()
    };
    let loaded = lopdf::Document::load_mem_with_options(bytes, options);
    if LOADED.with(std::cell::Cell::get).2 {
        return Err("the PDF holds too many objects for a fax".into());
    }
    let document = loaded.map_err(|e| format!("the PDF does not parse: {e}"))?;
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

    #[test]
    fn a_pdf_past_the_limits_is_refused() {
        let pdf = one_page_pdf();
        let tight = PdfLimits {
            objects: 2,
            ..PDF_LIMITS
        };
        assert_eq!(
            fax_document_within(&pdf, tight),
            Err("the PDF holds too many objects for a fax".into())
        );
        // The same document within the usual limits parses.
        assert_eq!(fax_document(&pdf), Ok(FaxDocument::Pdf { pages: 1 }));
    }
}
