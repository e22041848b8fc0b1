//! Banco do Brasil's collection files, CNAB 240: its "Layout de Arquivo Retorno/Remessa – CNAB 240"
//! follows FEBRABAN's 240; its rules (`billets::banks::banco_do_brasil`) give the headers' convênio
//! field (convênio, 0014, carteira, variação), the our number (convênio and sequence, 17 digits)
//! and the carteira code. Every record is FEBRABAN's ([`super::febraban240`]).

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
