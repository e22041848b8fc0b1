//! The printable billet (beyond the spec): the PDF in the FEBRABAN layout with its
//! Interleaved 2 of 5 barcode and Pix QR code, and the QR code alone as PNG or SVG. Encoders come
//! from crates (`barcoders`, `qrcode`, `png`, `pdf-writer`); this module lays them out.

pub mod barcode;
mod canvas;
pub mod instructions;
pub mod pix_qr;
pub mod slip;
pub mod text;

pub use slip::{Document, NotPrintable, Slip};
