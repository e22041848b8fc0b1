//! The PDF document around a page's content stream.

use pdf_writer::{Filter, Name, Pdf, Rect, Ref};

use crate::billets::printing::canvas::{self, MM, PAGE_HEIGHT, PAGE_WIDTH};

/// A one-page PDF around `content`, with Helvetica and Helvetica-Bold as its fonts.
pub(super) fn one_page_pdf(content: Vec<u8>, title: &str) -> Vec<u8> {
    let (catalog, pages, page, regular, bold, stream, info) =
        (Ref::new(1), Ref::new(2), Ref::new(3), Ref::new(4), Ref::new(5), Ref::new(6), Ref::new(7));
    let mut pdf = Pdf::new();
    pdf.catalog(catalog).pages(pages);
    pdf.pages(pages).kids([page]).count(1);
    let mut p = pdf.page(page);
    p.media_box(Rect::new(0.0, 0.0, PAGE_WIDTH * MM, PAGE_HEIGHT * MM)).parent(pages).contents(stream);
    let mut resources = p.resources();
    resources.fonts().pair(canvas::REGULAR, regular).pair(canvas::BOLD, bold);
    drop(resources);
    drop(p);
    for (id, face) in [(regular, "Helvetica"), (bold, "Helvetica-Bold")] {
        pdf.type1_font(id).base_font(Name(face.as_bytes())).encoding_predefined(Name(b"WinAnsiEncoding"));
    }
    // Deflated: a page of text and bars shrinks about five times.
    let deflated = miniz_oxide::deflate::compress_to_vec_zlib(&content, 6);
    pdf.stream(stream, &deflated).filter(Filter::FlateDecode);
    pdf.document_info(info).title(pdf_writer::TextStr(title)).producer(pdf_writer::TextStr("billing-api"));
    pdf.finish()
}
