//! Each bank's collection files as data: its remittance's records and its return's, every
//! position of each line in one field, in the order of the bank's manual (`billets::layout`). The
//! bank's rules (check digits, free field, codes) are beside, in `billets::banks`.
//!
//! Where banks follow FEBRABAN's "Layout Padrão 240" to the letter (segments Q and R, the
//! trailers), the record is written once here, in [`febraban240`], and each bank's layout names it;
//! where a bank departs (its header, segment P, its return's T), its file has its own.
//!
//! The values the records name are given by the engines: the beneficiary's (`beneficiary_kind`,
//! `beneficiary_document`, `beneficiary_name`), the agreement's parts (`billets::banks::Rules`), the
//! file's (`file_date`, `file_time`, `sequence`), each title's (`movement`, `our_number`, …,
//! `payer_*`), the counts (`record`, `batch_lines`, `titles`, `total`, `file_lines`, `line`).

use super::layout::Record;

pub mod banco_do_brasil240;
pub mod bradesco240;
pub mod bradesco400;
pub mod caixa240;
pub mod febraban240;
pub mod itau240;
pub mod itau400;
pub mod santander240;
pub mod sicoob240;

/// A CNAB 240 layout: the remittance's records, and the return's segments T and U.
pub struct Cnab240 {
    pub file_header: &'static Record,
    pub batch_header: &'static Record,
    /// The segments of each title, in order (P, Q, R).
    pub segments: &'static [&'static Record],
    pub batch_trailer: &'static Record,
    pub file_trailer: &'static Record,
    pub segment_t: &'static Record,
    pub segment_u: &'static Record,
}

impl Cnab240 {
    /// Every record of the remittance.
    pub fn remittance_records(&self) -> Vec<&'static Record> {
        let mut all = vec![self.file_header, self.batch_header];
        all.extend(self.segments);
        all.extend([self.batch_trailer, self.file_trailer]);
        all
    }
}

/// A CNAB 400 layout: the remittance's header, title (detail) and trailer, and the return's title.
pub struct Cnab400 {
    pub header: &'static Record,
    pub detail: &'static Record,
    pub trailer: &'static Record,
    pub return_detail: &'static Record,
}
