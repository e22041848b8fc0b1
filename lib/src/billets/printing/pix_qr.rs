//! The Pix QR code of a billet: the copy-and-paste payload encoded by `qrcode` (level M, what the
//! Banco Central's BR Code manual recommends), as a module matrix for the PDF, a PNG and an SVG.

use qrcode::render::svg;
use qrcode::{Color, EcLevel, QrCode};

/// Light modules around the symbol, as the QR standard asks.
pub const QUIET_ZONE: usize = 4;
/// Pixels per module in the PNG.
const PNG_MODULE: usize = 8;
/// Smallest side of the SVG, in its user units.
const SVG_SIDE: u32 = 256;

/// The QR symbol of a payload: `width` × `width` modules, row by row, `true` for dark.
#[derive(Clone, Debug)]
pub struct Matrix {
    pub width: usize,
    pub dark: Vec<bool>,
}

impl Matrix {
    pub fn is_dark(&self, x: usize, y: usize) -> bool {
        self.dark[y * self.width + x]
    }
}

fn code(payload: &str) -> Option<QrCode> {
    QrCode::with_error_correction_level(payload.as_bytes(), EcLevel::M).ok()
}

/// The symbol's modules, without the quiet zone; `None` when the payload does not fit a QR code.
pub fn matrix(payload: &str) -> Option<Matrix> {
    let code = code(payload)?;
    let dark = code.to_colors().into_iter().map(|c| c == Color::Dark).collect();
    Some(Matrix { width: code.width(), dark })
}

/// An 8-bit grayscale PNG, 8 pixels per module, with the quiet zone.
pub fn png(payload: &str) -> Option<Vec<u8>> {
    let matrix = matrix(payload)?;
    let side = (matrix.width + 2 * QUIET_ZONE) * PNG_MODULE;
    let mut pixels = vec![255u8; side * side];
    for (row, line) in pixels.chunks_mut(side).enumerate() {
        let y = (row / PNG_MODULE).checked_sub(QUIET_ZONE).filter(|y| *y < matrix.width);
        let Some(y) = y else { continue };
        for (column, pixel) in line.iter_mut().enumerate() {
            let x = (column / PNG_MODULE).checked_sub(QUIET_ZONE).filter(|x| *x < matrix.width);
            if x.is_some_and(|x| matrix.is_dark(x, y)) {
                *pixel = 0;
            }
        }
    }
    let mut bytes = Vec::new();
    let side = u32::try_from(side).ok()?;
    let mut encoder = png::Encoder::new(&mut bytes, side, side);
    encoder.set_color(png::ColorType::Grayscale);
    encoder.set_depth(png::BitDepth::Eight);
    let mut writer = encoder.write_header().ok()?;
    writer.write_image_data(&pixels).ok()?;
    writer.finish().ok()?;
    Some(bytes)
}

/// An SVG document (one path of dark modules over a white square, quiet zone included).
pub fn svg(payload: &str) -> Option<String> {
    let code = code(payload)?;
    Some(code.render::<svg::Color>().min_dimensions(SVG_SIDE, SVG_SIDE).quiet_zone(true).build())
}

#[cfg(test)]
mod tests {
    use super::*;

    const PAYLOAD: &str = "00020126580014br.gov.bcb.pix0136123e4567-e12b-12d1-a456-4266554400005204000053039865802BR5913Fulano de Tal6008BRASILIA62070503***63041D3D";

    #[test]
    fn the_matrix_has_finder_patterns_in_three_corners() {
        let m = matrix(PAYLOAD).unwrap();
        assert_eq!(m.dark.len(), m.width * m.width);
        let last = m.width - 1;
        for (x, y) in [(0, 0), (last, 0), (0, last), (6, 6), (last - 6, 0)] {
            assert!(m.is_dark(x, y), "({x}, {y})");
        }
        assert!(!m.is_dark(last, last) || !m.is_dark(last - 7, last - 7), "no finder bottom right");
    }

    #[test]
    fn the_png_is_a_png_of_the_matrix_with_its_quiet_zone() {
        let bytes = png(PAYLOAD).unwrap();
        assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n");
        let decoder = png::Decoder::new(std::io::Cursor::new(bytes));
        let reader = decoder.read_info().unwrap();
        let side = (matrix(PAYLOAD).unwrap().width + 2 * QUIET_ZONE) * PNG_MODULE;
        assert_eq!(reader.info().width as usize, side);
    }

    #[test]
    fn the_svg_is_one_document() {
        let text = svg(PAYLOAD).unwrap();
        assert!(text.contains("<svg") && text.ends_with("</svg>"), "{text}");
    }

    #[test]
    fn a_payload_too_long_for_a_qr_code_has_none() {
        assert!(matrix(&"9".repeat(8000)).is_none());
    }
}
