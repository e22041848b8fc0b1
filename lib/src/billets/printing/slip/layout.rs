//! The slip's drawing grid: its measures, fonts and colours, the labelled boxes of its rows, the
//! barcode's bars and the QR code's modules, and a Pix code broken into lines.

use crate::billets::printing::barcode::Bar;
use crate::billets::printing::canvas::{Canvas, Font};
use crate::billets::printing::pix_qr::{Matrix, QUIET_ZONE};

/// Left edge and width of the layout (mm).
pub(super) const LEFT: f32 = 10.0;
pub(super) const WIDTH: f32 = 190.0;
pub(super) const RIGHT: f32 = LEFT + WIDTH;
/// Line weights (mm): cell borders, and the rules under the headers.
pub(super) const THIN: f32 = 0.2;
pub(super) const THICK: f32 = 0.6;
/// Narrow bar (mm): 0.01 inch, three device pixels at 300 dpi.
const NARROW: f32 = 0.254;
const BARCODE_HEIGHT: f32 = 13.0;
/// The barcode's left edge (mm): half an inch, so bars fall on whole pixels at 300 dpi.
pub(super) const BARCODE_LEFT: f32 = 12.7;
// The quiet zone left of the bars (the page's margin) is at least ten narrow bars.
const _: () = assert!(BARCODE_LEFT >= 10.0 * NARROW);
/// Side of the Pix QR code, quiet zone included (mm).
pub(super) const QR_SIDE: f32 = 34.0;

pub(super) const LABEL: Font = Font::regular(5.5);
pub(super) const VALUE: Font = Font::regular(8.0);
const VALUE_BOLD: Font = Font::bold(8.5);
pub(super) const RED: (f32, f32, f32) = (0.8, 0.0, 0.0);
pub(super) const BLACK: (f32, f32, f32) = (0.0, 0.0, 0.0);

/// One labelled box of a row.
pub(super) struct Cell<'t> {
    width: f32,
    label: &'t str,
    value: String,
    bold: bool,
    right: bool,
}

impl<'t> Cell<'t> {
    pub(super) fn new(width: f32, label: &'t str, value: String) -> Cell<'t> {
        Cell { width, label, value, bold: false, right: false }
    }

    pub(super) fn bold(self) -> Self {
        Cell { bold: true, ..self }
    }

    pub(super) fn right(self) -> Self {
        Cell { right: true, ..self }
    }
}

/// A row of boxes across the layout, `height` tall from `top`.
pub(super) fn row(canvas: &mut Canvas, top: f32, height: f32, cells: &[Cell<'_>]) {
    row_at(canvas, LEFT, top, height, cells);
}

/// A row of boxes from `left`: a border left of each, one right of the last, one below all.
pub(super) fn row_at(canvas: &mut Canvas, left: f32, top: f32, height: f32, cells: &[Cell<'_>]) {
    let mut x = left;
    for cell in cells {
        canvas.vline(x, top, height, THIN);
        canvas.text(x + 1.0, top + 2.3, LABEL, cell.label);
        let font = if cell.bold { VALUE_BOLD } else { VALUE };
        let value = font.fit(&cell.value, cell.width - 2.0);
        let baseline = top + height - 1.6;
        if cell.right {
            canvas.text_right(x + cell.width - 1.0, baseline, font, &value);
        } else {
            canvas.text(x + 1.0, baseline, font, &value);
        }
        x += cell.width;
    }
    canvas.vline(x, top, height, THIN);
    canvas.hline(left, top + height, x - left, THIN);
}

/// The bars, `BARCODE_HEIGHT` tall from `top`; nothing else is drawn within 6.35 mm of either end.
pub(super) fn draw_barcode(canvas: &mut Canvas, bars: &[Bar], left: f32, top: f32) {
    for bar in bars {
        canvas.fill_rect(left + bar.x as f32 * NARROW, top, bar.width as f32 * NARROW, BARCODE_HEIGHT);
    }
}

/// The QR code in a `QR_SIDE` square from (`left`, `top`), quiet zone included; each run of dark
/// modules in a row is one rectangle.
pub(super) fn draw_qr(canvas: &mut Canvas, matrix: &Matrix, left: f32, top: f32) {
    let module = QR_SIDE / (matrix.width + 2 * QUIET_ZONE) as f32;
    let origin = (left + module * QUIET_ZONE as f32, top + module * QUIET_ZONE as f32);
    for y in 0..matrix.width {
        let mut x = 0;
        while x < matrix.width {
            if !matrix.is_dark(x, y) {
                x += 1;
                continue;
            }
            let start = x;
            while x < matrix.width && matrix.is_dark(x, y) {
                x += 1;
            }
            let (rx, ry) = (origin.0 + start as f32 * module, origin.1 + y as f32 * module);
            canvas.fill_rect(rx, ry, (x - start) as f32 * module, module);
        }
    }
}

/// `text` in lines of at most `room` millimetres, broken anywhere (a Pix code has no spaces).
pub(super) fn wrap_chars(text: &str, font: Font, room: f32) -> Vec<String> {
    let mut lines = vec![String::new()];
    for c in text.chars() {
        let current = lines.last_mut().expect("one line at least");
        current.push(c);
        if font.width(current) > room {
            current.pop();
            lines.push(c.to_string());
        }
    }
    lines
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::billets::printing::barcode;

    #[test]
    fn the_barcode_is_about_103_mm() {
        let bars = barcode::bars("00192376900000135000000001238798777770016818").unwrap();
        let width = barcode::units(&bars) as f32 * NARROW;
        assert!((102.5..=103.5).contains(&width), "{width}");
    }

    #[test]
    fn long_pix_codes_wrap() {
        let lines = wrap_chars(&"0".repeat(300), Font::regular(6.5), 100.0);
        assert!(lines.len() > 1 && lines.iter().all(|l| Font::regular(6.5).width(l) <= 100.0));
        assert_eq!(lines.concat(), "0".repeat(300));
    }
}
