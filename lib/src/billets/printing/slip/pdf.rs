//! The PDF document around a page's content stream, or a carnê's pages.

use pdf_writer::{Filter, Name, Pdf, Rect, Ref};

use crate::billets::printing::canvas::{self, MM, PAGE_HEIGHT, PAGE_WIDTH};

/// A one-page PDF around `content`, with Helvetica and Helvetica-Bold as its fonts.
pub(super) fn one_page_pdf(content: Vec<u8>, title: &str) -> Vec<u8> {
    pages_pdf(vec![content], title)
}

/// A PDF of one page per content stream (a carnê's slips), sharing the two fonts.
pub(super) fn pages_pdf(contents: Vec<Vec<u8>>, title: &str) -> Vec<u8> {
    let (catalog, pages, regular, bold, info) = (Ref::new(1), Ref::new(2), Ref::new(3), Ref::new(4), Ref::new(5));
    // Each page and its stream after them.
    let page_refs: Vec<(Ref, Ref)> =
        (0..contents.len() as i32).map(|i| (Ref::new(6 + 2 * i), Ref::new(7 + 2 * i))).collect();
    let mut pdf = Pdf::new();
    pdf.catalog(catalog).pages(pages);
    pdf.pages(pages).kids(page_refs.iter().map(|(page, _)| *page)).count(contents.len() as i32);
    for (content, (page, stream)) in contents.into_iter().zip(&page_refs) {
        let mut p = pdf.page(*page);
        p.media_box(Rect::new(0.0, 0.0, PAGE_WIDTH * MM, PAGE_HEIGHT * MM)).parent(pages).contents(*stream);
        p.resources().fonts().pair(canvas::REGULAR, regular).pair(canvas::BOLD, bold);
        drop(p);
        // Deflated: a page of text and bars shrinks about five times.
        let deflated = miniz_oxide::deflate::compress_to_vec_zlib(&content, 6);
        pdf.stream(*stream, &deflated).filter(Filter::FlateDecode);
    }
    for (id, face) in [(regular, "Helvetica"), (bold, "Helvetica-Bold")] {
        pdf.type1_font(id).base_font(Name(face.as_bytes())).encoding_predefined(Name(b"WinAnsiEncoding"));
    }
    pdf.document_info(info).title(pdf_writer::TextStr(title)).producer(pdf_writer::TextStr("billing-api"));
    pdf.finish()
}
