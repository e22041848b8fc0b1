//! The billet's barcode as bars to draw: Interleaved 2 of 5 over the 44 digits (FEBRABAN), encoded
//! by `barcoders` and measured here in narrow-bar units, wide = 3 narrow.
//!
//! `barcoders` gives one module per narrow element and three per wide one, except the stop
//! pattern's wide bar, which it writes two modules wide; since I2of5 alternates bar and space, each
//! run of equal modules is exactly one element, so runs are read as narrow (1) or wide (more) and
//! every wide element is drawn at the same 1:3 ratio the standard asks for. With 44 digits the
//! symbol is 4 (start) + 22 × 18 (pairs) + 5 (stop) = 405 narrow units: 102.87 mm at 0.254 mm.

use barcoders::sym::tf::TF;

/// Width of a wide element in narrow units (FEBRABAN allows 1:2.25 to 1:3).
const WIDE: u32 = 3;

/// One bar: where it starts and how wide it is, in narrow units from the symbol's left edge.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Bar {
    pub x: u32,
    pub width: u32,
}

/// The bars of a 44-digit barcode, or `None` when `digits` is not 44 digits (an odd count would
/// make the encoder append a check digit the bank never computed).
pub fn bars(digits: &str) -> Option<Vec<Bar>> {
    if digits.len() != 44 || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let modules = TF::interleaved(digits).ok()?.encode();
    let mut bars = Vec::new();
    let mut x = 0;
    for run in modules.chunk_by(|a, b| a == b) {
        let width = if run.len() == 1 { 1 } else { WIDE };
        if run[0] == 1 {
            bars.push(Bar { x, width });
        }
        x += width;
    }
    Some(bars)
}

/// The symbol's width in narrow units (from the first bar's left edge to the last bar's right).
pub fn units(bars: &[Bar]) -> u32 {
    bars.last().map_or(0, |bar| bar.x + bar.width)
}

#[cfg(test)]
mod tests {
    use super::*;

    const CODE: &str = "00192376900000135000000001238798777770016818";

    #[test]
    fn forty_four_digits_make_405_units_of_narrow_and_wide_elements() {
        let bars = bars(CODE).unwrap();
        assert_eq!(units(&bars), 405);
        // 2 start bars, 5 bars per digit pair... 22 pairs carry 110 bars, the stop 2.
        assert_eq!(bars.len(), 2 + 22 * 5 + 2);
        assert!(bars.iter().all(|b| b.width == 1 || b.width == WIDE));
        // Start: narrow bar, narrow space, narrow bar, narrow space; stop: wide bar, space, bar.
        assert_eq!(&bars[..2], &[Bar { x: 0, width: 1 }, Bar { x: 2, width: 1 }]);
        assert_eq!(&bars[bars.len() - 2..], &[Bar { x: 400, width: 3 }, Bar { x: 404, width: 1 }]);
    }

    #[test]
    fn the_first_pair_interleaves_its_digits() {
        // "00": bars of 0 (NNWWN) interleaved with spaces of 0 (NNWWN), after the 4-unit start.
        let bars = bars(CODE).unwrap();
        let first: Vec<(u32, u32)> = bars[2..7].iter().map(|b| (b.x, b.width)).collect();
        assert_eq!(first, [(4, 1), (6, 1), (8, 3), (14, 3), (20, 1)]);
    }

    #[test]
    fn only_44_digits_are_drawn() {
        assert_eq!(bars("123"), None);
        assert_eq!(bars(&"1".repeat(43)), None);
        assert_eq!(bars(&format!("{}x", &CODE[..43])), None);
    }
}
