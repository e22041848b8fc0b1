//! Bradesco's collection files, CNAB 240: its "Layout CNAB 240 – Cobrança" follows FEBRABAN's 240
//! field by field; its rules (`billets::banks::bradesco`) give the header's convênio, the title's
//! identification (carteira, zeros, our number and its digit) and the carteira code. Every record
//! is FEBRABAN's ([`super::febraban240`]).

use super::febraban240 as febraban;
use super::Cnab240;

/// The layout.
pub const LAYOUT: Cnab240 = Cnab240 {
    file_header: &febraban::FILE_HEADER,
    batch_header: &febraban::BATCH_HEADER,
    segments: &[&febraban::SEGMENT_P, &febraban::SEGMENT_Q, &febraban::SEGMENT_R],
    batch_trailer: &febraban::BATCH_TRAILER,
    file_trailer: &febraban::FILE_TRAILER,
    segment_t: &febraban::SEGMENT_T,
    segment_u: &febraban::SEGMENT_U,
};
