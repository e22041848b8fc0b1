//! Drawing on one A4 page in millimetres from the top-left corner, as a layout is measured,
//! over `pdf-writer`'s content stream (points from the bottom-left). Text uses the standard
//! Helvetica faces, regular and bold.

use pdf_writer::{Content, Name, Str};

use super::text;

/// Points per millimetre.
pub const MM: f32 = 72.0 / 25.4;
pub const PAGE_WIDTH: f32 = 210.0;
pub const PAGE_HEIGHT: f32 = 297.0;
/// The page's resource names of the two faces.
pub const REGULAR: Name<'static> = Name(b"F1");
pub const BOLD: Name<'static> = Name(b"F2");

/// A face and a size in points.
#[derive(Clone, Copy, Debug)]
pub struct Font {
    pub size: f32,
    pub bold: bool,
}

impl Font {
    pub const fn regular(size: f32) -> Font {
        Font { size, bold: false }
    }

    pub const fn bold(size: f32) -> Font {
        Font { size, bold: true }
    }

    /// Width of `text` in millimetres.
    pub fn width(self, text: &str) -> f32 {
        text::width(text, self.size, self.bold) / MM
    }

    /// `text` cut to fit `room` millimetres.
    pub fn fit(self, text: &str, room: f32) -> String {
        text::fit(text, self.size, self.bold, room * MM)
    }
}

pub struct Canvas {
    content: Content,
}

impl Canvas {
    pub fn new() -> Canvas {
        Canvas { content: Content::new() }
    }

    fn y(y: f32) -> f32 {
        (PAGE_HEIGHT - y) * MM
    }

    /// A straight line `width` millimetres thick.
    pub fn line(&mut self, (x1, y1): (f32, f32), (x2, y2): (f32, f32), width: f32) {
        self.content.set_line_width(width * MM);
        self.content.move_to(x1 * MM, Self::y(y1)).line_to(x2 * MM, Self::y(y2)).stroke();
    }

    pub fn hline(&mut self, x: f32, y: f32, length: f32, width: f32) {
        self.line((x, y), (x + length, y), width);
    }

    pub fn vline(&mut self, x: f32, y: f32, length: f32, width: f32) {
        self.line((x, y), (x, y + length), width);
    }

    /// A line of dashes (`dash` long, as far apart).
    pub fn dashed_hline(&mut self, x: f32, y: f32, length: f32, dash: f32) {
        self.content.save_state();
        self.content.set_dash_pattern([dash * MM, dash * MM], 0.0);
        self.hline(x, y, length, 0.2);
        self.content.restore_state();
    }

    /// A filled rectangle whose top-left corner is (`x`, `y`), in the current fill colour.
    pub fn fill_rect(&mut self, x: f32, y: f32, width: f32, height: f32) {
        self.content.rect(x * MM, Self::y(y + height), width * MM, height * MM).fill_nonzero();
    }

    /// Text from `x` on the baseline `y`.
    pub fn text(&mut self, x: f32, y: f32, font: Font, text: &str) {
        let face = if font.bold { BOLD } else { REGULAR };
        let bytes = text::encode(text);
        self.content.begin_text().set_font(face, font.size).next_line(x * MM, Self::y(y)).show(Str(&bytes)).end_text();
    }

    /// Text ending at `right`.
    pub fn text_right(&mut self, right: f32, y: f32, font: Font, text: &str) {
        self.text(right - font.width(text), y, font, text);
    }

    /// Text centred on `center`.
    pub fn text_center(&mut self, center: f32, y: f32, font: Font, text: &str) {
        self.text(center - font.width(text) / 2.0, y, font, text);
    }

    /// Fill colour (text and shapes) from here on.
    pub fn fill_rgb(&mut self, (r, g, b): (f32, f32, f32)) {
        self.content.set_fill_rgb(r, g, b);
    }

    /// The content stream.
    pub fn finish(self) -> Vec<u8> {
        self.content.finish().into_vec()
    }
}
