//! Sicoob's collection files, CNAB 240: its "CNAB 240 – Cobrança" (file layout 081, batch 040)
//! follows FEBRABAN's 240; its rules (`billets::banks::sicoob`) give the our-number field (our
//! number with its digit, parcela, modalidade, tipo de formulário). Every record is FEBRABAN's
//! ([`super::febraban240`]).

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
